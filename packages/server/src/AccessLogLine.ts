import type { AccessLogEntry } from "@gatehouse-edge/transport-http"
import type * as Fiber from "effect/Fiber"
import * as References from "effect/References"

// The last second formatted, as its ISO text up to the milliseconds ("2026-11-25T12:34:56."): `toISOString` goes
// through V8's C++ date formatting (~1 µs a line, bench/README.md), and the lines of one second share this prefix.
let formattedSecond = Number.NaN
let secondPrefix = ""

/** `date.toISOString()`, for the dates of years 0 to 9999 (the others are formatted by it). */
export const isoTimestamp = (date: Date): string => {
  const ms = date.getTime()
  if (!(ms >= 0 && ms < 253_402_300_800_000)) return date.toISOString()
  const second = Math.floor(ms / 1000)
  if (second !== formattedSecond) {
    secondPrefix = date.toISOString().slice(0, 20)
    formattedSecond = second
  }
  const millis = ms - second * 1000
  return `${secondPrefix}${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`
}

const hasNone = (items: Iterable<unknown>) => {
  for (const _ of items) return false
  return true
}

/**
 * The line of a request fiber that carries no log annotation or span of its own (the usual one): the bytes
 * `JSON.stringify` gives the lean formatter's object, written out directly. In a profile of the server under load
 * (perf, bench/README.md), stringifying a fresh object per request went through V8's slow paths (object shape
 * migrations, property definition): with `toISOString`, ~6% of a request's CPU.
 */
export const plainAccessLine = (entry: AccessLogEntry, fiber: Fiber.Fiber<unknown, unknown>, date: Date) => {
  if (!hasNone(Object.keys(fiber.getRef(References.CurrentLogAnnotations)))) return undefined
  if (!hasNone(fiber.getRef(References.CurrentLogSpans))) return undefined
  const requestId = entry.request_id === undefined ? "" : `,"request_id":${JSON.stringify(entry.request_id)}`
  return (
    `{"message":"http","level":"INFO","timestamp":"${isoTimestamp(date)}","annotations":{` +
    `"method":${JSON.stringify(entry.method)},"path":${JSON.stringify(entry.path)},` +
    `"status":${JSON.stringify(entry.status)},"duration_ms":${JSON.stringify(entry.duration_ms)}${requestId}},` +
    `"spans":{},"fiberId":"#${fiber.id}"}`
  )
}
