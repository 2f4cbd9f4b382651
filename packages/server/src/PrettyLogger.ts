import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Logger from "effect/Logger"
import type { LogLevel } from "effect/LogLevel"
import * as References from "effect/References"
import { escapeControl, linesOf } from "./EscapedText.js"

const levelColors: Record<LogLevel, ReadonlyArray<number>> = {
  None: [],
  All: [],
  Trace: [90],
  Debug: [34],
  Info: [32],
  Warn: [33],
  Error: [31],
  Fatal: [101, 30]
}
const BOLD = 1
const CYAN = 36
const WHITE = 37

const twoDigits = (n: number) => n.toString().padStart(2, "0")
const timeOf = (date: Date) =>
  `${twoDigits(date.getHours())}:${twoDigits(date.getMinutes())}:${twoDigits(date.getSeconds())}.` +
  date.getMilliseconds().toString().padStart(3, "0")

/**
 * Log lines for a person at a terminal, as Effect's `consolePretty` lays them out (`[time] LEVEL (#fiber): message`,
 * then the cause, the other parts and the annotations indented below), except that the text of a line is escaped
 * (`escapeControl`): a message or an annotation from outside cannot write colours, OSC sequences or lines of its
 * own. The only control bytes written are the logger's: its line breaks, and its colours when `colors` is on.
 */
export const prettyLogger = (options: { readonly colors: boolean }): Logger.Logger<unknown, void> => {
  const color = options.colors
    ? (text: string, ...codes: ReadonlyArray<number>) => `\x1b[${codes.join(";")}m${text}\x1b[0m`
    : (text: string, ..._codes: ReadonlyArray<number>) => text
  return Logger.make(({ cause, date, fiber, logLevel, message }) => {
    const parts: Array<unknown> = Array.isArray(message) ? message.slice() : [message]
    let first = `${color(`[${timeOf(date)}]`, WHITE)} ${color(logLevel.toUpperCase(), ...levelColors[logLevel])}`
    first += ` (#${fiber.id})`
    for (const [label, start] of fiber.getRef(References.CurrentLogSpans)) {
      first += ` ${escapeControl(label.replace(/[\s="]/g, "_"))}=${date.getTime() - start}ms`
    }
    first += ":"
    if (typeof parts[0] === "string") first += ` ${color(escapeControl(parts.shift() as string), BOLD, CYAN)}`

    const below: Array<string> = []
    if (cause.reasons.length > 0) for (const error of Cause.prettyErrors(cause)) below.push(...linesOf(error))
    for (const part of parts) below.push(...linesOf(part))
    for (const [key, value] of Object.entries(fiber.getRef(References.CurrentLogAnnotations))) {
      const [head = "", ...rest] = linesOf(value)
      below.push(`${color(`${escapeControl(key)}:`, BOLD, WHITE)} ${head}`, ...rest.map((line) => `  ${line}`))
    }

    // One write per entry: its lines stay together when fibers log at once.
    const console = fiber.getRef(Console.Console)
    const write = fiber.getRef(References.LogToStderr) ? console.error : console.log
    write([first, ...below.map((line) => `  ${line}`)].join("\n"))
  })
}
