import * as util from "node:util"
import * as Redactable from "effect/Redactable"

// C0 (but tab), DEL and C1: a terminal acts on them (ESC and CSI start colour, cursor and OSC sequences, an OSC can
// set the window title; CR and LF start a line), so text from outside (a container label, a route file) written raw
// could paint, move or forge lines of the log.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g

const named: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r" }

/** `text` with every control character but tab written out (`\n`, `\r`, `\u001b`): one line, nothing a terminal acts on. */
export const escapeControl = (text: string): string =>
  text.replace(CONTROL, (char) => named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)

// A stack's frames are the lines the runtime wrote ("    at ..."); the lines before them are the error's message,
// which is outside text and is shown escaped in the error's first line instead.
const framesOf = (stack: unknown): ReadonlyArray<string> =>
  typeof stack === "string" ? stack.split("\n").filter((line) => /^\s+at /.test(line)) : []

const errorLines = (error: Error, seen: Set<unknown>): ReadonlyArray<string> => {
  seen.add(error)
  const lines = [escapeControl(`${error.name}: ${error.message}`), ...framesOf(error.stack).map(escapeControl)]
  const cause = error.cause
  if (cause === undefined || seen.has(cause)) return lines
  const [first = "", ...rest] = cause instanceof Error ? errorLines(cause, seen) : linesOf(cause, seen)
  return [...lines, `  [cause]: ${first}`, ...rest.map((line) => `  ${line}`)]
}

/**
 * How a value of a log line is shown on a terminal, as lines the logger writes (a line break is the logger's, never
 * the value's): a string as one escaped line; an error as its escaped `name: message` and its stack's frames; any
 * other value as `util.inspect` shows it (which escapes the strings inside), redacted values redacted.
 */
export const linesOf = (value: unknown, seen: Set<unknown> = new Set()): ReadonlyArray<string> => {
  const shown = Redactable.redact(value)
  if (typeof shown === "string") return [escapeControl(shown)]
  if (shown instanceof Error) return errorLines(shown, seen)
  return util.inspect(shown).split("\n").map(escapeControl)
}
