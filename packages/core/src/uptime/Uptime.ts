import type { InvalidArgument, RouteUptimePage, UptimeQuery } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"

/**
 * Uptime metrics (SPEC §4): every route's health is sampled every second and kept per period (5m, 15m, 1h, 1d,
 * 1mo) in buckets of a hundredth of the period, so a period has at most 100 points; the history is in the store
 * and survives a restart. Pages list the current routes (excluded ones too), aliases ascending; a route that goes
 * away keeps its history until it ages out, so it is all there if the route comes back. The real layer is
 * `UptimeLive.layer`.
 */
export class Uptime extends Context.Service<
  Uptime,
  {
    /**
     * One page of aggregates: up (`healthy`), down (`unhealthy`, `error`) and idle (`napping`) as fractions of
     * the known samples of the period, the average latency of the healthy ones, the current status and the
     * period's points, oldest first. Fails when a value of the query is out of range.
     */
    readonly query: (query: UptimeQuery) => Effect.Effect<RouteUptimePage, InvalidArgument>
    /** Checks the query, then the page, and the page again after every sample (every second) until closed. */
    readonly watch: (query: UptimeQuery) => Effect.Effect<Stream.Stream<RouteUptimePage>, InvalidArgument>
  }
>()("@gatehouse-edge/core/Uptime") {}
