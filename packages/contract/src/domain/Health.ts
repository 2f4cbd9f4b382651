import * as Schema from "effect/Schema"

/** The health of a route as one word. */
export const HealthStatusString = Schema.Literals([
  "healthy",
  "unhealthy",
  "starting",
  "napping",
  "error",
  "unknown"
]).annotate({ identifier: "HealthStatusString" })
export type HealthStatusString = typeof HealthStatusString.Type

/** Health of one route without detail: status, last latency, time in the current status, last check time. */
export const HealthInfo = Schema.Struct({
  status: HealthStatusString,
  latency_ms: Schema.Finite,
  uptime_s: Schema.Finite,
  last_check: Schema.NullOr(Schema.String)
}).annotate({ identifier: "HealthInfo" })
export type HealthInfo = typeof HealthInfo.Type

/** `alias → HealthInfo` for every route. */
export const HealthMap = Schema.Record(Schema.String, HealthInfo).annotate({ identifier: "HealthMap" })
export type HealthMap = typeof HealthMap.Type

/** Two maps with the same routes and statuses are the same to a watcher: latency and time fields move on every check. */
export const sameStatuses = (a: HealthMap, b: HealthMap): boolean => {
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((alias) => b[alias]?.status === a[alias]?.status)
}

/**
 * The key of the server's own entry in the health map, present (with status `error`) only while a route source
 * has a problem: an invalid route file the server started or kept running without, a route that lost a conflict
 * across providers. `@` cannot start an alias, so it never collides with a route.
 */
export const ServerHealthKey = "@gatehouse"
