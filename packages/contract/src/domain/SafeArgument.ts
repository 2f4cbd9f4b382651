import * as Schema from "effect/Schema"

// SPEC §5.4: the characters a shell (or `journalctl`/`tail`/`pct` option parsing) could give meaning to.
const dangerousCharacters = new Set("&|;$`'\"<>\\(){}*?!~#")

// C0 controls, DEL and C1 controls: terminals and loggers interpret them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const controlCharacter = /[\u0000-\u001f\u007f-\u009f]/

/**
 * Why `value` is not safe to hand to a remote command as one argument (a service name, a file path, ...),
 * or `undefined` when it is safe. Rejects the characters of SPEC §5.4, whitespace, control characters,
 * `..` path segments, a leading `-` (it would be read as an option) and the empty string.
 */
export const unsafeArgumentReason = (value: string): string | undefined => {
  if (value.length === 0) return "must not be empty"
  if (value.startsWith("-")) return "must not start with `-`"
  for (const char of value) {
    if (dangerousCharacters.has(char)) return `must not contain \`${char}\``
    if (/\s/u.test(char)) return "must not contain whitespace"
    if (controlCharacter.test(char)) return "must not contain control characters"
  }
  if (value.split("/").includes("..")) return "must not contain a `..` path segment"
  return undefined
}

/** Whether `value` can be passed to a remote command as one argument (see {@link unsafeArgumentReason}). */
export const isSafeArgument = (value: string): boolean => unsafeArgumentReason(value) === undefined

/** Schema check: the string is a safe command argument (SPEC §5.4). */
export const isSafeArgumentCheck = Schema.makeFilter<string>((value) => unsafeArgumentReason(value), {
  expected: "a command argument without dangerous characters",
  identifier: "SafeArgument"
})

/** A string that is safe to pass to a remote command as one argument: no shell metacharacters, no `..`, no `-x`. */
export const SafeArgument = Schema.String.check(isSafeArgumentCheck).annotate({ identifier: "SafeArgument" })
export type SafeArgument = typeof SafeArgument.Type
