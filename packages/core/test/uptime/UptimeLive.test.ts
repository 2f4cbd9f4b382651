import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { HealthMemory } from "../../src/health/Health.js"
import { RoutesMemory } from "../../src/routes/Routes.js"
import { Uptime } from "../../src/uptime/Uptime.js"
import { info, repeat, routeRecord, secondsOf, storedRows, uptimeWorld } from "./UptimeWorld.js"

// The live service under the test clock: every `TestClock.adjust` of a second is one sample of the health map the
// test set, so every fraction, latency and point below follows from the sequence the test wrote.

const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

describe("Uptime: aggregation of known status sequences", () => {
  it.effect("fractions of the known samples, latency of the healthy ones, the worst status per bucket", () =>
    Effect.gen(function* () {
      // t=0 is sampled when the layer starts; t=1..9 by the steps below.
      yield* secondsOf([
        { app: info("healthy", 20) },
        { app: info("healthy", 0) }, // healthy, but measured nothing (a container's own HEALTHCHECK)
        { app: info("unhealthy", 500) },
        { app: info("error") },
        { app: info("napping") },
        { app: info("starting") },
        { app: info("unknown") },
        { app: info("healthy", 30) },
        { app: info("unhealthy", 5000) }
      ])
      const uptime = yield* Uptime
      const page = yield* uptime.query({ period: "5m" })
      assert.strictEqual(page.total, 1)
      const app = page.data[0]!
      // Known: 4 healthy (t0, t1, t2, t8), 3 down (t3 unhealthy, t4 error, t9 unhealthy), 1 napping (t5);
      // starting (t6) and unknown (t7) count for none.
      assert.deepStrictEqual(
        { up: app.uptime, down: app.downtime, idle: app.idle, latency: app.avg_latency_ms },
        { up: 4 / 8, down: 3 / 8, idle: 1 / 8, latency: (10 + 20 + 30) / 3 }
      )
      assert.strictEqual(app.current_status, "unhealthy")
      assert.isFalse(app.is_excluded)
      // 5m buckets are 3 s wide.
      assert.deepStrictEqual(app.statuses, [
        { status: "healthy", latency_ms: 15, timestamp: iso(0) },
        { status: "error", latency_ms: 0, timestamp: iso(3) },
        { status: "starting", latency_ms: 30, timestamp: iso(6) },
        { status: "unhealthy", latency_ms: 0, timestamp: iso(9) }
      ])
      // A 1h bucket is 36 s wide: one point holding all ten samples.
      const hour = (yield* uptime.query({ period: "1h" })).data[0]!
      assert.deepStrictEqual(hour.statuses, [{ status: "error", latency_ms: 20, timestamp: iso(0) }])
      assert.strictEqual(hour.uptime, 0.5)
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("app")], health: { app: info("healthy", 10) } })))
  )

  it.effect("a sample on a bucket boundary opens the next bucket; all-unknown gives zeros", () =>
    Effect.gen(function* () {
      // 15m buckets are 9 s: t0..t8 in the first, t9 in the second.
      yield* secondsOf([
        ...repeat(8, { app: info("healthy", 1), idle: info("unknown") }),
        { app: info("napping"), idle: info("unknown") }
      ])
      const page = yield* (yield* Uptime).query({ period: "15m" })
      const [app, idle] = page.data
      assert.deepStrictEqual(
        app!.statuses.map((p) => [p.status, p.timestamp]),
        [
          ["healthy", iso(0)],
          ["napping", iso(9)]
        ]
      )
      assert.strictEqual(app!.uptime, 0.9)
      assert.strictEqual(app!.idle, 0.1)
      assert.deepStrictEqual(
        [idle!.uptime, idle!.downtime, idle!.idle, idle!.avg_latency_ms],
        [0, 0, 0, 0],
        "no known sample: no fraction"
      )
      assert.deepStrictEqual(
        idle!.statuses.map((p) => p.status),
        ["unknown", "unknown"]
      )
    }).pipe(
      Effect.provide(
        uptimeWorld({
          routes: [routeRecord("app"), routeRecord("idle")],
          health: { app: info("healthy", 1), idle: info("unknown") }
        })
      )
    )
  )

  it.effect("a period never has more than 100 points; retention deletes buckets past the window", () =>
    Effect.gen(function* () {
      yield* TestClock.adjust("10 minutes")
      const uptime = yield* Uptime
      const five = (yield* uptime.query({ period: "5m" })).data[0]!
      assert.strictEqual(five.statuses.length, 100)
      // The current bucket (t=600 s) and the 99 before it, 3 s apart.
      assert.strictEqual(five.statuses[0]!.timestamp, iso(600 - 99 * 3))
      assert.strictEqual(five.statuses[99]!.timestamp, iso(600))
      assert.strictEqual(five.uptime, 1)
      // 601 samples in 9 s buckets: 67 points, all of them inside the 15 minutes.
      assert.strictEqual((yield* uptime.query({ period: "15m" })).data[0]!.statuses.length, 67)

      const stored = yield* storedRows("app", "5m")
      // Swept at least once a minute: nothing older than the window, one more bucket and a minute.
      assert.isAtLeast(stored[0]!.bucket_start, (600 - 300 - 3 - 60) * 1000)
      assert.isAtMost(stored.length, 100 + 1 + 60 / 3)
      // The day's buckets are all inside the day: none deleted.
      assert.strictEqual((yield* storedRows("app", "1d")).length, 1)
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("app")], health: { app: info("healthy", 2) } })))
  )
})

describe("Uptime: which routes, in which order", () => {
  const aliases = ["web", "api", "webmail", "www-backup", "db"]
  const world = uptimeWorld({
    routes: aliases.map((alias) => routeRecord(alias, alias === "www-backup")),
    health: { ...Object.fromEntries(aliases.map((a) => [a, info("unknown")])), web: info("healthy", 3) }
  })
  const listed = (page: { readonly data: ReadonlyArray<{ readonly alias: string }> }) => page.data.map((r) => r.alias)

  it.effect("aliases ascending; keyword case-insensitive, substring or in-order characters; then paging", () =>
    Effect.gen(function* () {
      const uptime = yield* Uptime
      const all = yield* uptime.query({})
      assert.strictEqual(all.total, 5)
      assert.deepStrictEqual(listed(all), ["api", "db", "web", "webmail", "www-backup"])
      assert.deepStrictEqual(
        all.data.map((r) => [r.alias, r.is_excluded, r.current_status]),
        [
          ["api", false, "unknown"],
          ["db", false, "unknown"],
          ["web", false, "healthy"],
          ["webmail", false, "unknown"],
          ["www-backup", true, "unknown"]
        ]
      )
      assert.deepStrictEqual(listed(yield* uptime.query({ keyword: "WEB" })), ["web", "webmail"])
      assert.deepStrictEqual(listed(yield* uptime.query({ keyword: "wb" })), ["web", "webmail", "www-backup"])
      assert.deepStrictEqual(listed(yield* uptime.query({ keyword: "x" })), [])
      const page = yield* uptime.query({ limit: 2, offset: 1 })
      assert.deepStrictEqual([page.total, listed(page)], [5, ["db", "web"]])
      const filtered = yield* uptime.query({ keyword: "w", limit: 1, offset: 2 })
      assert.deepStrictEqual([filtered.total, listed(filtered)], [3, ["www-backup"]])
      const past = yield* uptime.query({ offset: 10 })
      assert.deepStrictEqual([past.total, listed(past)], [5, []])
    }).pipe(Effect.provide(world))
  )

  it.effect("a route that goes away is not listed; back again, it has its history", () =>
    Effect.gen(function* () {
      const uptime = yield* Uptime
      const routes = yield* RoutesMemory
      const health = yield* HealthMemory
      yield* TestClock.adjust("5 seconds")
      yield* routes.set([routeRecord("api")])
      yield* health.set({ api: info("healthy", 1) })
      yield* TestClock.adjust("20 seconds")
      assert.deepStrictEqual(listed(yield* uptime.query({ period: "5m" })), ["api"])
      yield* routes.set([routeRecord("api"), routeRecord("web")])
      yield* health.set({ api: info("healthy", 1), web: info("unhealthy") })
      yield* TestClock.adjust("1 second")
      const web = (yield* uptime.query({ period: "5m", keyword: "web" })).data[0]!
      // Healthy for t0..t5 (six samples), then one unhealthy sample at t=26.
      assert.strictEqual(web.statuses[0]!.timestamp, iso(0))
      assert.strictEqual(web.statuses.at(-1)!.timestamp, iso(24))
      assert.strictEqual(web.uptime, 6 / 7)
    }).pipe(Effect.provide(world))
  )
})

describe("Uptime: queries and watchers", () => {
  it.effect("refuses a bad period, limit, offset or keyword with InvalidArgument naming it", () =>
    Effect.gen(function* () {
      const uptime = yield* Uptime
      const bad = [
        [{ period: "2h" as "1h" }, "period"],
        [{ limit: 0 }, "limit"],
        [{ limit: 1001 }, "limit"],
        [{ limit: 1.5 }, "limit"],
        [{ offset: -1 }, "offset"],
        [{ keyword: "k".repeat(254) }, "keyword"]
      ] as const
      for (const [query, field] of bad) {
        const error = yield* Effect.flip(uptime.query(query))
        assert.deepStrictEqual(error.issues[0]!.path, [field], JSON.stringify(query))
        const watchError = yield* Effect.flip(uptime.watch(query))
        assert.deepStrictEqual(watchError.issues[0]!.path, [field])
      }
      assert.strictEqual((yield* uptime.query({ limit: 1000, keyword: "k".repeat(253) })).total, 0)
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("app")], health: {} })))
  )

  it.effect("watchers of one query share its pages (one built per sample); another query has its own", () =>
    Effect.gen(function* () {
      const uptime = yield* Uptime
      const pagesOf = (query: Parameters<typeof uptime.watch>[0]) =>
        Effect.flatMap(uptime.watch(query), (pages) => Effect.forkChild(Stream.runCollect(Stream.take(pages, 3))))
      const first = yield* pagesOf({ period: "1h" })
      const second = yield* pagesOf({ period: "1h" })
      const other = yield* pagesOf({ period: "1d" })
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      yield* secondsOf([{ app: info("healthy") }, { app: info("unhealthy") }, { app: info("healthy") }])
      const [a, b, c] = [yield* Fiber.join(first), yield* Fiber.join(second), yield* Fiber.join(other)]
      assert.strictEqual(a.length, 3)
      // The very same page objects: built once, delivered to both.
      for (let i = 0; i < 3; i++) assert.strictEqual(a[i], b[i], `page ${i}`)
      assert.notStrictEqual(a[2], c[2])
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("app")], health: {} })))
  )

  it.effect("queries of one period are cut from one aggregation per sample, whatever their offset or limit", () =>
    Effect.gen(function* () {
      const uptime = yield* Uptime
      const pagesOf = (query: Parameters<typeof uptime.watch>[0]) =>
        Effect.flatMap(uptime.watch(query), (pages) => Effect.forkChild(Stream.runCollect(Stream.take(pages, 2))))
      const first = yield* pagesOf({ period: "1h", limit: 1 })
      const second = yield* pagesOf({ period: "1h", limit: 1, offset: 1 })
      const both = yield* pagesOf({ period: "1h", limit: 2 })
      for (let i = 0; i < 100; i++) yield* Effect.yieldNow
      yield* secondsOf([
        { a: info("healthy"), b: info("unhealthy") },
        { a: info("healthy"), b: info("healthy") }
      ])
      const [one, two, all] = [yield* Fiber.join(first), yield* Fiber.join(second), yield* Fiber.join(both)]
      for (let i = 0; i < 2; i++) {
        // The very same route aggregates in every page of the sample: built once for the period.
        assert.strictEqual(one[i]!.data[0], all[i]!.data[0], `sample ${i}, route a`)
        assert.strictEqual(two[i]!.data[0], all[i]!.data[1], `sample ${i}, route b`)
        assert.deepStrictEqual([one[i]!.total, two[i]!.total], [2, 2])
      }
    }).pipe(Effect.provide(uptimeWorld({ routes: [routeRecord("a"), routeRecord("b")], health: {} })))
  )
})
