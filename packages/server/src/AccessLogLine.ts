import type { AccessLogEntry } from "@gatehouse-edge/transport-http"
import type * as Fiber from "effect/Fiber"
import * as References from "effect/References"

const hasNone = (items: Iterable<unknown>) => {
  for (const _ of items) return false
  return true
}

/**
 * The line of a request fiber that carries no log annotation or span of its own (the usual one): the bytes
 * `JSON.stringify` gives the lean formatter's object, written out directly. Measured (bench/http-health.ts, a
 * profile of the server under load): stringifying a fresh object per request went through V8's slow paths
 * (object shape migrations, property definition) for ~8 µs a request.
 */
export const plainAccessLine = (entry: AccessLogEntry, fiber: Fiber.Fiber<unknown, unknown>, date: Date) => {
  if (!hasNone(Object.keys(fiber.getRef(References.CurrentLogAnnotations)))) return undefined
  if (!hasNone(fiber.getRef(References.CurrentLogSpans))) return undefined
  const requestId = entry.request_id === undefined ? "" : `,"request_id":${JSON.stringify(entry.request_id)}`
  return (
    `{"message":"http","level":"INFO","timestamp":"${date.toISOString()}","annotations":{` +
    `"method":${JSON.stringify(entry.method)},"path":${JSON.stringify(entry.path)},` +
    `"status":${JSON.stringify(entry.status)},"duration_ms":${JSON.stringify(entry.duration_ms)}${requestId}},` +
    `"spans":{},"fiberId":"#${fiber.id}"}`
  )
}
