import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { RouteUptimePage } from "@gatehouse-edge/contract/domain"
import { Context, Deferred, Effect, Fiber, Layer, Stream } from "effect"
import { TestClock } from "effect/testing"
import { HealthMemory } from "../../src/health/Health.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { Uptime } from "../../src/uptime/Uptime.js"
import { UptimeWatcherCount } from "../../src/uptime/UptimeLive.js"
import { UptimeRepository } from "../../src/uptime/UptimeRepository.js"
import { tempDir } from "../store/TempDir.js"
import { info, repeat, routeRecord, secondsOf, storedRows, uptimeWorld } from "./UptimeWorld.js"

const healthy = { app: info("healthy", 5) }
const unhealthy = { app: info("unhealthy", 5000) }

describe("Uptime: history in the store", () => {
  it.effect("a restart keeps the history: closing flushes what was counted, the next start adds to it", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const world = (health: typeof healthy) =>
        Layer.fresh(uptimeWorld({ routes: [routeRecord("app")], health, store: StoreLive.layer({ filename }) }))
      // t0..t5 healthy, t6..t11 unhealthy; stopped at t=11, less than a flush interval after the last flush.
      yield* secondsOf([...repeat(5, healthy), ...repeat(6, unhealthy)]).pipe(Effect.provide(world(healthy)))
      const page = yield* Effect.flatMap(Uptime, (uptime) => uptime.query({ period: "1h" })).pipe(
        Effect.provide(world(healthy))
      )
      // The new process samples t=11 again, healthy: 7 of 13.
      assert.strictEqual(page.data[0]!.uptime, 7 / 13)
      assert.strictEqual(page.data[0]!.downtime, 6 / 13)
      assert.strictEqual(page.data[0]!.avg_latency_ms, 5)
      const five = yield* Effect.flatMap(Uptime, (uptime) => uptime.query({ period: "5m" })).pipe(
        Effect.provide(world(healthy))
      )
      assert.deepStrictEqual(
        five.data[0]!.statuses.map((p) => p.status),
        ["healthy", "healthy", "unhealthy", "unhealthy"]
      )
    })
  )

  it.effect("counts reach the store every 5 s: a crash loses at most the last 5 s", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust("12 seconds")
      // Thirteen samples taken (t0..t12), read straight from the table, not through the service.
      const [hour] = yield* storedRows("app", "1h")
      assert.isAtLeast(hour!.samples, 13 - 5)
      assert.isBelow(hour!.samples, 13)
      assert.strictEqual((yield* (yield* Uptime).query({ period: "1h" })).data[0]!.uptime, 1, "pages count both")
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("app")], health: healthy })))
  )

  it.effect("a write that fails keeps its counts for the next flush", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust("7 seconds")
      assert.deepStrictEqual(yield* storedRows("app", "1h"), [], "the flush at 5 s failed")
      yield* TestClock.adjust("5 seconds")
      const [hour] = yield* storedRows("app", "1h")
      assert.isAtLeast(hour!.samples, 10, "everything since t=0 is there")
    }).pipe(
      Effect.provide(
        uptimeWorld({
          routes: [routeRecord("app")],
          health: healthy,
          // The first write dies (a full disk, a lost database), later ones work.
          repository: Layer.effect(
            UptimeRepository,
            Effect.gen(function* () {
              const real = Context.get(yield* Layer.build(UptimeRepository.layer), UptimeRepository)
              let failures = 1
              return UptimeRepository.of({
                ...real,
                add: (buckets) => (failures-- > 0 ? Effect.die(new Error("disk I/O error")) : real.add(buckets))
              })
            })
          )
        })
      )
    )
  )
})

describe("Uptime.watch", () => {
  it.effect("the page, then the page again after every sample; a stream that ends is no longer counted", () =>
    Effect.gen(function* () {
      const stream = yield* (yield* Uptime).watch({ period: "5m" })
      const first = yield* Deferred.make<void>()
      const fiber = yield* stream.pipe(
        Stream.tap(() => Deferred.succeed(first, undefined)),
        Stream.take(3),
        Stream.runCollect,
        Effect.forkScoped
      )
      yield* Deferred.await(first)
      const watchers = yield* UptimeWatcherCount
      assert.strictEqual(yield* watchers.get, 1)
      yield* (yield* HealthMemory).set(unhealthy)
      yield* TestClock.adjust("1 second")
      yield* TestClock.adjust("1 second")
      const pages: ReadonlyArray<RouteUptimePage> = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        pages.map((p) => p.data[0]!.downtime),
        [0, 1 / 2, 2 / 3]
      )
      assert.strictEqual(yield* watchers.get, 0)
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("app")], health: healthy })), Effect.scoped)
  )
})
