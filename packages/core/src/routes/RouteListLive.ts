import { Effect, Layer, Stream } from "effect"
import { type HealthInfo, type HealthMap, ServerHealthKey } from "../domain/Health.js"
import type { RouteEntry } from "../domain/RouteEntry.js"
import { Health } from "../health/Health.js"
import { RouteList } from "./RouteList.js"
import { type RouteRecord, Routes } from "./Routes.js"

const unknownHealth: HealthInfo = { status: "unknown", latency_ms: 0, uptime_s: 0, last_check: null }

/** A route table record as listed by the API: the route, its provider, excluded flag and current health. */
export const toRouteEntry = (record: RouteRecord, health: HealthMap): RouteEntry => ({
  ...record.route,
  provider: record.provider,
  excluded: record.excluded,
  health: health[record.route.alias] ?? unknownHealth
})

// Health follows the route table, so after a route change there is a moment when the table is new and the health
// map is not (or, depending on which subscription runs first, the other way round). Only a pair where both
// describe the same routes is a state worth sending; the other is an intermediate one.
const describeSameRoutes = (records: ReadonlyArray<RouteRecord>, health: HealthMap): boolean =>
  records.length === Object.keys(health).length - (ServerHealthKey in health ? 1 : 0) &&
  records.every((record) => record.route.alias in health)

/** {@link RouteList} over the route table and the health service. */
export const layer: Layer.Layer<RouteList, never, Routes | Health> = Layer.effect(
  RouteList,
  Effect.gen(function* () {
    const routes = yield* Routes
    const health = yield* Health
    return RouteList.of({
      list: Effect.zipWith(routes.list, health.snapshot, (records, map) =>
        records.map((record) => toRouteEntry(record, map))
      ).pipe(Effect.withSpan("RouteList.list")),
      get: Effect.fn("RouteList.get")(function* (alias: string) {
        const record = yield* routes.get(alias)
        return toRouteEntry(record, yield* health.snapshot)
      }),
      changes: Stream.zipLatestWith(routes.changes, health.changes, (records, map) => ({ records, map })).pipe(
        Stream.filter(({ records, map }) => describeSameRoutes(records, map)),
        Stream.map(({ records, map }) => records.map((record) => toRouteEntry(record, map)))
      )
    })
  })
)
