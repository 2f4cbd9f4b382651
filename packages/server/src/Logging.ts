import type { GatehouseConfig } from "@gatehouse-edge/core"
import { Effect, Layer, Logger, References } from "effect"
import { leanJsonLogger } from "./LeanJsonLogger.js"

const levels = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" } as const

// One write per batch instead of one synchronous console call per line: under load the access log was a sixth of
// a request's cost. Lines wait at most this long; the rest is flushed when the server stops.
const JSON_BATCH_WINDOW = "50 millis"

const batchedJson = Logger.batched(leanJsonLogger, {
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
    Logger.layer([pretty ? Logger.consolePretty() : batchedJson]),
    Layer.succeed(References.MinimumLogLevel, levels[log.level])
  )
}
