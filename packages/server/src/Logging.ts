import type { GatehouseConfig } from "@gatehouse-edge/core"
import { type AccessLogWrite, AccessLogWriter, requestIdOf, withRequestIds } from "@gatehouse-edge/transport-http"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type { LogLevel } from "effect/LogLevel"
import * as References from "effect/References"
import { plainAccessLine } from "./AccessLogLine.js"
import { leanJsonLine, leanJsonLoggerWith } from "./LeanJsonLogger.js"
import { batchLines } from "./LineBatch.js"
import { LogAtTerminal } from "./LogAtTerminal.js"
import { prettyLogger } from "./PrettyLogger.js"

const levels = { debug: "Debug", info: "Info", warn: "Warn", error: "Error" } as const

// One write per batch instead of one synchronous console call per line: under load the access log was a sixth of
// a request's cost. Lines wait at most this long (and an idle server runs no timer); the rest is flushed when the
// server stops.
const JSON_BATCH_WINDOW = "50 millis"

// The request id goes into a lean line directly; the general formatter (errors, rare shapes) gets it through
// `withRequestIds`, whose view of the fiber costs too much for every access-log line.
const requestIdAnnotation = (fiber: Fiber.Fiber<unknown, unknown>) => {
  const requestId = requestIdOf(fiber)
  return requestId === undefined ? undefined : { request_id: requestId }
}

/** A line formatted before it reaches the batch (an access-log line); the batch takes it as it is. */
class FormattedLine {
  constructor(readonly line: string) {}
}

const lines = leanJsonLoggerWith(requestIdAnnotation, withRequestIds(Logger.formatJson))

const jsonLines = Logger.make((options) =>
  options.message instanceof FormattedLine ? options.message.line : lines.log(options)
)

/**
 * The access log straight into the batch: the same line `Effect.logInfo("http")` annotated with the entry would
 * give (`message: "http"`, the entry with the request id in `annotations`), without annotating the request's
 * context or running the logger pipeline (~35 µs of a ~100 µs request, bench/http-stack.ts).
 */
const accessLogInto =
  (batch: Logger.Logger<unknown, void>): AccessLogWrite =>
  (entry, fiber) => {
    const date = new Date()
    const line =
      plainAccessLine(entry, fiber, date) ??
      leanJsonLine({ message: "http", logLevel: "Info", cause: Cause.empty, fiber, date }, (f) => ({
        ...entry,
        ...requestIdAnnotation(f)
      }))
    if (line !== undefined)
      batch.log({ message: new FormattedLine(line), logLevel: "Info", cause: Cause.empty, fiber, date })
  }

const layerJsonLogging = Layer.unwrap(
  Effect.map(
    batchLines(jsonLines, {
      window: JSON_BATCH_WINDOW,
      flush: (lines) => Effect.sync(() => process.stdout.write(`${lines.join("\n")}\n`))
    }),
    (batch) => Layer.mergeAll(Logger.layer([batch]), Layer.succeed(AccessLogWriter)(accessLogInto(batch)))
  )
)

/** How {@link layerLogging} is run beside the config's `log` section. */
export interface LoggingOptions {
  /** Whether stdout is a terminal (for `format: auto`); default: asked of stdout. */
  readonly isTty?: boolean | undefined
  /** The `--log-level` flag's level, when given: it wins over `log.level` (flags > environment > file). */
  readonly level?: LogLevel | undefined
}

/**
 * Structured logs: one JSON object per line (for log shippers), or pretty lines for a terminal. `auto` picks
 * pretty when stdout is a terminal. Every line of a request carries its `request_id`. Also says whether the log
 * reaches a person at a terminal ({@link LogAtTerminal}).
 */
export const layerLogging = (log: GatehouseConfig["log"], options: LoggingOptions = {}) => {
  const isTty = options.isTty ?? process.stdout.isTTY === true
  const pretty = log.format === "pretty" || (log.format === "auto" && isTty)
  return Layer.mergeAll(
    pretty ? Logger.layer([withRequestIds(prettyLogger({ colors: isTty }))]) : layerJsonLogging,
    Layer.succeed(References.MinimumLogLevel, options.level ?? levels[log.level]),
    // Pretty lines piped away (`format: pretty` under systemd or docker) are stored and shipped all the same.
    Layer.succeed(LogAtTerminal)(pretty && isTty)
  )
}
