import type { GatehouseConfig } from "@gatehouse/core"
import { Layer, Logger, References } from "effect"

const levels = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" } as const

/**
 * Structured logs: one JSON object per line (for log shippers), or pretty lines for a terminal. `auto` picks
 * pretty when stdout is a terminal. Every line of a request carries its `request_id`.
 */
export const layerLogging = (log: GatehouseConfig["log"], isTty = process.stdout.isTTY === true) => {
  const pretty = log.format === "pretty" || (log.format === "auto" && isTty)
  return Layer.mergeAll(
    Logger.layer([pretty ? Logger.consolePretty() : Logger.consoleJson]),
    Layer.succeed(References.MinimumLogLevel, levels[log.level])
  )
}
