import type { GatehouseConfig } from "@gatehouse-edge/core"
import { requestIdOf, withRequestIds } from "@gatehouse-edge/transport-http"
import { Effect, type Fiber, Layer, Logger, References } from "effect"
import { leanJsonLoggerWith } from "./LeanJsonLogger.js"

const levels = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" } as const

// One write per batch instead of one synchronous console call per line: under load the access log was a sixth of
// a request's cost. Lines wait at most this long; the rest is flushed when the server stops.
const JSON_BATCH_WINDOW = "50 millis"

// The request id goes into a lean line directly; the general formatter (errors, rare shapes) gets it through
// `withRequestIds`, whose view of the fiber costs too much for every access-log line.
const requestIdAnnotation = (fiber: Fiber.Fiber<unknown, unknown>) => {
  const requestId = requestIdOf(fiber)
  return requestId === undefined ? undefined : { request_id: requestId }
}

const batchedJson = Logger.batched(leanJsonLoggerWith(requestIdAnnotation, withRequestIds(Logger.formatJson)), {
  window: JSON_BATCH_WINDOW,
  flush: (lines) => Effect.sync(() => process.stdout.write(`${lines.join("\n")}\n`))
})

/**
 * Structured logs: one JSON object per line (for log shippers), or pretty lines for a terminal. `auto` picks
 * pretty when stdout is a terminal. Every line of a request carries its `request_id`.
 */
export const layerLogging = (log: GatehouseConfig["log"], isTty = process.stdout.isTTY === true) => {
  const pretty = log.format === "pretty" || (log.format === "auto" && isTty)
  return Layer.mergeAll(
    Logger.layer([pretty ? withRequestIds(Logger.consolePretty()) : batchedJson]),
    Layer.succeed(References.MinimumLogLevel, levels[log.level])
  )
}
