import { Schema } from "effect"
import { HealthStatusString } from "./Health.js"

/** One health sample. */
export const StatusSample = Schema.Struct({
  status: HealthStatusString,
  latency_ms: Schema.Finite,
  timestamp: Schema.String
}).annotate({ identifier: "StatusSample" })
export type StatusSample = typeof StatusSample.Type

/** Aggregated health of one route over a period (fractions 0..1). */
export const RouteAggregate = Schema.Struct({
  alias: Schema.String,
  uptime: Schema.Finite,
  downtime: Schema.Finite,
  idle: Schema.Finite,
  avg_latency_ms: Schema.Finite,
  current_status: HealthStatusString,
  statuses: Schema.Array(StatusSample)
}).annotate({ identifier: "RouteAggregate" })
export type RouteAggregate = typeof RouteAggregate.Type

/** {@link RouteAggregate} plus whether the route is excluded, as listed by `/metrics/uptime`. */
export const RouteUptimeAggregate = Schema.Struct({
  alias: Schema.String,
  is_excluded: Schema.Boolean,
  uptime: Schema.Finite,
  downtime: Schema.Finite,
  idle: Schema.Finite,
  avg_latency_ms: Schema.Finite,
  current_status: HealthStatusString,
  statuses: Schema.Array(StatusSample)
}).annotate({ identifier: "RouteUptimeAggregate" })
export type RouteUptimeAggregate = typeof RouteUptimeAggregate.Type

/** Periods uptime is aggregated over. */
export const UptimePeriod = Schema.Literals(["5m", "15m", "1h", "1d", "1mo"]).annotate({ identifier: "UptimePeriod" })
export type UptimePeriod = typeof UptimePeriod.Type
