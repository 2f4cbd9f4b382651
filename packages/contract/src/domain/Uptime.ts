import * as Schema from "effect/Schema"
import { HealthStatusString } from "./Health.js"

/**
 * One point of a route's uptime history: a bucket of `period / 100`. `status` is the most severe status sampled in
 * the bucket (error > unhealthy > starting > napping > healthy > unknown), `latency_ms` the average latency of its
 * healthy samples that measured one (0 when none did), `timestamp` the start of the bucket (RFC 3339).
 */
export const StatusSample = Schema.Struct({
  status: HealthStatusString,
  latency_ms: Schema.Finite,
  timestamp: Schema.String
}).annotate({ identifier: "StatusSample" })
export type StatusSample = typeof StatusSample.Type

/**
 * Aggregated health of one route over a period. `uptime`, `downtime` and `idle` are fractions (0..1) of the
 * samples whose status is known: healthy, unhealthy or error, napping (`starting` and `unknown` samples count for
 * none of them), so they add up to 1, or are all 0 when no sample was known.
 */
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

/** Periods uptime is aggregated over (`1mo` is 30 days). */
export const UptimePeriod = Schema.Literals(["5m", "15m", "1h", "1d", "1mo"]).annotate({ identifier: "UptimePeriod" })
export type UptimePeriod = typeof UptimePeriod.Type

/** One page of `/metrics/uptime`: `total` routes matched the query, `data` holds those of the page. */
export const RouteUptimePage = Schema.Struct({
  total: Schema.Int,
  data: Schema.Array(RouteUptimeAggregate)
}).annotate({ identifier: "RouteUptimePage" })
export type RouteUptimePage = typeof RouteUptimePage.Type

/**
 * Which routes and period to aggregate: `period` (default `1d`), `limit` routes (1–1000, default 100) after
 * skipping `offset` (default 0) of those whose alias matches `keyword` (case-insensitive: its characters appear in
 * the alias in order, so a substring always matches), aliases ascending.
 */
export interface UptimeQuery {
  readonly period?: UptimePeriod | undefined
  readonly limit?: number | undefined
  readonly offset?: number | undefined
  readonly keyword?: string | undefined
}
