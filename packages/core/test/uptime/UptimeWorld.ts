import type { HealthInfo, HealthMap, HealthStatusString, UptimePeriod } from "@gatehouse-edge/contract/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { Health, HealthMemory } from "../../src/health/Health.js"
import { type RouteRecord, Routes } from "../../src/routes/Routes.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import * as UptimeLive from "../../src/uptime/UptimeLive.js"
import { UptimeRepository } from "../../src/uptime/UptimeRepository.js"
import { recordOf, route } from "../health/RouteFixtures.js"

/** A route record for `alias` (an HTTP route; its monitor is not run: health comes from `HealthMemory`). */
export const routeRecord = (alias: string, excluded = false): RouteRecord =>
  recordOf(route(alias, "http", 80), excluded)

/** A health entry with a status and a latency. */
export const info = (status: HealthStatusString, latency_ms = 0): HealthInfo => ({
  status,
  latency_ms,
  uptime_s: 0,
  last_check: null
})

/**
 * The live uptime service over routes and health the test sets (`RoutesMemory`, `HealthMemory`) and a store (a
 * fresh in-memory one unless given). Building it takes the first sample at the test clock's time.
 */
export const uptimeWorld = (options: {
  readonly routes: ReadonlyArray<RouteRecord>
  readonly health: HealthMap
  readonly store?: Layer.Layer<SqlClient.SqlClient, unknown>
  readonly repository?: Layer.Layer<UptimeRepository, never, SqlClient.SqlClient>
}) =>
  UptimeLive.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        options.repository ?? UptimeRepository.layer,
        Routes.layerMemory(options.routes),
        Health.layerMemory(options.health)
      )
    ),
    Layer.provideMerge(options.store ?? StoreLive.layerMemory)
  )

/** Moves the test clock one second at a time (one sample each), setting the health map before each step. */
export const secondsOf = (maps: ReadonlyArray<HealthMap>) =>
  Effect.gen(function* () {
    const health = yield* HealthMemory
    for (const map of maps) {
      yield* health.set(map)
      yield* TestClock.adjust("1 second")
    }
  })

/** `n` seconds of the same map. */
export const repeat = <A>(n: number, value: A): ReadonlyArray<A> => Array.from({ length: n }, () => value)

/** Rows of the store per period for an alias, read straight from the table: what a restart would find. */
export const storedRows = (alias: string, period: UptimePeriod) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ bucket_start: number; healthy: number; unhealthy: number; samples: number }>`
      SELECT bucket_start, healthy, unhealthy, healthy + unhealthy + error + napping + starting + unknown AS samples
      FROM uptime_buckets WHERE alias = ${alias} AND period = ${period} ORDER BY bucket_start`.pipe(Effect.orDie)
    return rows.map((r) => ({ ...r, bucket_start: Number(r.bucket_start), samples: Number(r.samples) }))
  })
