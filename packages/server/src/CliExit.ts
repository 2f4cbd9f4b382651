import * as Data from "effect/Data"
import * as Runtime from "effect/Runtime"

/**
 * Ends the CLI with an exit code after the command has already printed why: the runtime neither logs it again
 * nor dumps a stack trace at the user.
 */
export class CliExit extends Data.TaggedError("CliExit")<{ readonly code: number }> {
  override readonly [Runtime.errorReported] = false
  override get [Runtime.errorExitCode](): number {
    return this.code
  }
}
