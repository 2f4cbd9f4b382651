/** Global flags of the command line that take their value as the next argument (`--log-level debug`). */
const globalFlagsWithValue = new Set(["--log-level", "--completions"])

/**
 * The subcommand that the process arguments (those after the script) name: the first that is neither a flag nor
 * the value of a global flag (`gatehouse --log-level debug serve` names `serve`). For what must be decided before
 * the command line's own parser is loaded; that parser remains the judge of whether the arguments are valid.
 */
export const subcommandOf = (args: ReadonlyArray<string>): string | undefined => {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!
    if (globalFlagsWithValue.has(arg)) index++
    else if (!arg.startsWith("-")) return arg
  }
  return undefined
}
