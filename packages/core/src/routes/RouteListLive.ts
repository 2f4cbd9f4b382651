import type { RouteEntry } from "@gatehouse-edge/contract/domain"
import { type HealthInfo, type HealthMap, ServerHealthKey } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { Health } from "../health/Health.js"
import { GuestLocator } from "../hypervisor/GuestLocator.js"
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

/**
 * {@link RouteList} over the route table and the health service. With a hypervisor, a route without a `proxmox`
 * field is listed with the guest that reverse lookup finds for it (SPEC §2).
 */
export const layer: Layer.Layer<RouteList, never, Routes | Health> = Layer.effect(
  RouteList,
  Effect.gen(function* () {
    const routes = yield* Routes
    const health = yield* Health
    const locator = yield* GuestLocator
    const located = (entry: RouteEntry): Effect.Effect<RouteEntry> =>
      locator === undefined || entry.proxmox !== undefined
        ? Effect.succeed(entry)
        : Effect.map(locator.locate(entry), (found) =>
            found === undefined ? entry : { ...entry, proxmox: { node: found.node, vmid: found.vmid } }
          )
    const entries = (records: ReadonlyArray<RouteRecord>, map: HealthMap) =>
      locator === undefined
        ? Effect.succeed(records.map((record) => toRouteEntry(record, map)))
        : Effect.forEach(records, (record) => located(toRouteEntry(record, map)))
    return RouteList.of({
      list: Effect.flatMap(Effect.zip(routes.list, health.snapshot), ([records, map]) => entries(records, map)).pipe(
        Effect.withSpan("RouteList.list")
      ),
      get: Effect.fn("RouteList.get")(function* (alias: string) {
        const record = yield* routes.get(alias)
        return yield* located(toRouteEntry(record, yield* health.snapshot))
      }),
      changes: Stream.zipLatestWith(routes.changes, health.changes, (records, map) => ({ records, map })).pipe(
        Stream.filter(({ records, map }) => describeSameRoutes(records, map)),
        Stream.mapEffect(({ records, map }) => entries(records, map))
      )
    })
  })
)
