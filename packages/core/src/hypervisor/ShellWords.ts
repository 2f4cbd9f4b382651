/**
 * Quotes one word for a POSIX shell: the whole word in single quotes, each `'` written as `'\''` (close the quote,
 * an escaped quote, reopen). Inside single quotes a POSIX shell interprets nothing, so every byte arrives literally,
 * newlines and `$(...)` included. Every word is quoted, even a plain one, so no caller can forget a case.
 */
export const quoteWord = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`

/** A command line from `argv`: each word quoted with {@link quoteWord}, joined with single spaces. */
export const commandLine = (argv: ReadonlyArray<string>): string => argv.map(quoteWord).join(" ")
