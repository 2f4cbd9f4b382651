import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"

/** One answered request, as the access log records it. */
export interface AccessLogEntry {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly duration_ms: number
  /** The request's id (`x-request-id`), when the request has one. */
  readonly request_id?: string | undefined
}

/** Writes an access-log line for `entry`, served by `fiber` (its id goes into the line, as in every log line). */
export type AccessLogWrite = (entry: AccessLogEntry, fiber: Fiber.Fiber<unknown, unknown>) => void

/**
 * A direct writer for access-log lines, set by a server whose log sink takes them without Effect's logger
 * (`gatehouse serve`'s JSON log). Without one, a line is `Effect.logInfo("http")` with the entry as annotations,
 * which goes to whatever loggers are installed. Measured (bench/http-stack.ts): annotating the request's context
 * and running the logger pipeline were ~35 µs of a ~100 µs request; the direct writer skips both.
 */
export class AccessLogWriter extends Context.Reference<AccessLogWrite | undefined>(
  "@gatehouse-edge/transport-http/AccessLogWriter",
  { defaultValue: () => undefined }
) {}

/**
 * Records one answered request at level Info, from inside the fiber that served it: written at once by a direct
 * writer (`undefined` is returned), else the effect that logs it; nothing when the minimum log level is above Info.
 */
export const logAccess = (
  fiber: Fiber.Fiber<unknown, unknown>,
  entry: AccessLogEntry
): Effect.Effect<void> | undefined => {
  if (!LogLevel.isGreaterThanOrEqualTo("Info", fiber.getRef(References.MinimumLogLevel))) return undefined
  const write = fiber.getRef(AccessLogWriter)
  if (write === undefined) return Effect.logInfo("http").pipe(Effect.annotateLogs({ ...entry }))
  write(entry, fiber)
  return undefined
}

/** Records one answered request, at level Info (nothing when the minimum log level is above it). */
export const writeAccessLog = (entry: AccessLogEntry): Effect.Effect<void> =>
  Effect.withFiber((fiber) => logAccess(fiber, entry) ?? Effect.void)
