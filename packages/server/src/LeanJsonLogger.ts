import type * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as References from "effect/References"

/**
 * A JSON line per entry, with the fields and shape of `Logger.formatJson` (`message`, `level`, `timestamp`,
 * `annotations`, `spans`, `fiberId`, and `cause` when there is one), built with one `JSON.stringify` for the
 * common entry — a single string message whose annotations are plain JSON, like every access-log line. Anything
 * else (several message parts, a cause, values JSON cannot take) goes through `Logger.formatJson`. Under load the
 * general formatter (structuring every value, guarding against cycles) was a tenth of a request's cost.
 */
export const leanJsonLogger: Logger.Logger<unknown, string> = Logger.make(
  (options) => leanJsonLine(options) ?? Logger.formatJson.log(options)
)

/** Annotations a line gets besides the fiber's own (e.g. the request id of the request the fiber serves). */
export type ExtraAnnotations = (fiber: Fiber.Fiber<unknown, unknown>) => Record<string, unknown> | undefined

/**
 * {@link leanJsonLogger} with `extra` annotations on every line; lines the lean path cannot write go to `general`,
 * which must add them itself.
 */
export const leanJsonLoggerWith = (
  extra: ExtraAnnotations,
  general: Logger.Logger<unknown, string>
): Logger.Logger<unknown, string> => Logger.make((options) => leanJsonLine(options, extra) ?? general.log(options))

/** The line of an entry the lean path can write, or `undefined` for one only `Logger.formatJson` can. */
export const leanJsonLine = (options: Logger.Options<unknown>, extra?: ExtraAnnotations): string | undefined => {
  const { fiber, date, logLevel, cause } = options
  // `Effect.log("x")` passes its arguments as an array.
  const message = Array.isArray(options.message) && options.message.length === 1 ? options.message[0] : options.message
  if (typeof message !== "string" || cause.reasons.length > 0) return undefined
  const now = date.getTime()
  const spans: Record<string, number> = {}
  for (const [label, started] of fiber.getRef(References.CurrentLogSpans)) spans[label] = now - started
  return safeStringify({
    message,
    level: logLevel.toUpperCase(),
    timestamp: date.toISOString(),
    annotations: withExtra(fiber.getRef(References.CurrentLogAnnotations), extra?.(fiber)),
    spans,
    fiberId: `#${fiber.id}`
  })
}

const withExtra = (annotations: Record<string, unknown>, extra: Record<string, unknown> | undefined) =>
  extra === undefined ? annotations : { ...annotations, ...extra }

// Plain values only: a bigint or a cycle falls back to the general formatter.
const safeStringify = (value: unknown): string | undefined => {
  try {
    return JSON.stringify(value)
  } catch {
    return undefined
  }
}
