import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Event, HealthMap } from "@gatehouse-edge/contract/domain"
import { Deferred, Effect, Fiber, Layer, Logger, Option, Queue, Ref, Stream, SubscriptionRef, Tracer } from "effect"
import { TestClock } from "effect/testing"
import { Events } from "../../src/events/Events.js"
import { Health, HealthMemory } from "../../src/health/Health.js"
import * as HealthLive from "../../src/health/HealthLive.js"
import type { RouteRecord } from "../../src/routes/Routes.js"
import { eventsLayer, routesLayer, waitForHealth } from "./Fakes.js"
import { httpServer, tempDir } from "./LoopbackServers.js"
import { recordOf, route } from "./RouteFixtures.js"

/** The Health layer over a route table and an event log the test controls. */
const harness = (initial: ReadonlyArray<RouteRecord>) =>
  Effect.gen(function* () {
    const table = yield* SubscriptionRef.make(initial)
    const published = yield* Ref.make<ReadonlyArray<Event>>([])
    const layer = HealthLive.layer.pipe(Layer.provide(routesLayer(table)), Layer.provide(eventsLayer(published)))
    return { table, published, layer }
  })

const waitFor = waitForHealth

/** Takes the next item of a queue the server fills, or fails the test after `ms`. */
const next = <A>(queue: Queue.Queue<A>, what: string, ms = 5000) =>
  Effect.timeoutOrElse(Queue.take(queue), {
    duration: ms,
    orElse: () => Effect.die(new Error(`timed out waiting for ${what}`))
  })

/** Nothing arrives on `queue` for `ms`: used to show a stopped monitor stays stopped. */
const nothingWithin = <A>(queue: Queue.Queue<A>, ms: number) =>
  Effect.map(Effect.timeoutOption(Queue.take(queue), ms), (o) => assert.isTrue(Option.isNone(o), JSON.stringify(o)))

/**
 * Drives one route's monitor on the test's clock. `until` reads the map directly (the feed is paced by the test's
 * clock) until `pred` holds: checks do real I/O, so it polls on the live clock, with a deadline. `edit` replaces the
 * route and returns its entry once the new monitor checked it.
 */
const clockDriven = (table: SubscriptionRef.SubscriptionRef<ReadonlyArray<RouteRecord>>, alias: string) =>
  Effect.gen(function* () {
    const health = yield* Health
    const until = (what: string, pred: (info: HealthMap[string] | undefined) => boolean) =>
      TestClock.withLive(
        Effect.gen(function* () {
          for (let i = 0; i < 500; i++) {
            const info = (yield* health.snapshot)[alias]
            if (pred(info)) return info
            yield* Effect.sleep(10)
          }
          return yield* Effect.die(
            new Error(`timed out waiting for ${what}: ${JSON.stringify(yield* health.snapshot)}`)
          )
        })
      )
    // An edit shows once its new monitor replaced the old one: unchecked, or checked at once (its first check is at a
    // random point of its first second, possibly 0 ms away); one more second brings that check for sure.
    const edit = (record: RouteRecord, what: string) =>
      Effect.gen(function* () {
        const before = (yield* health.snapshot)[alias]?.last_check
        // One step of the grid first, so that a check of the new monitor bears a time of its own.
        yield* TestClock.adjust("100 millis")
        yield* SubscriptionRef.set(table, [record])
        yield* until(`${what}: restarted`, (i) => i?.last_check !== before)
        yield* TestClock.adjust("1 second")
        return yield* until(`${what}: checked`, (i) => i?.last_check != null && i.last_check !== before)
      })
    return { until, edit }
  })

describe("Health layer", () => {
  it.live(
    "starting → healthy; unmonitored, disabled and excluded routes are unknown; no event for the first healthy",
    () =>
      Effect.gen(function* () {
        const server = yield* httpServer()
        const held = { path: "/held/app", interval_ms: 50, timeout_ms: 10_000 }
        const h = yield* harness([
          recordOf(route("app", "http", server.port, held)),
          recordOf(route("lb", "http", server.port, null)),
          recordOf(route("off", "http", server.port, { disable: true, path: "/ok" })),
          recordOf(route("hidden", "http", server.port, { path: "/ok" }), true)
        ])
        yield* Effect.gen(function* () {
          const health = yield* Health
          const first = yield* health.snapshot
          assert.deepStrictEqual(Object.keys(first), ["app", "hidden", "lb", "off"], "sorted by alias")
          assert.deepStrictEqual(
            Object.fromEntries(Object.entries(first).map(([a, i]) => [a, [i.status, i.last_check]])),
            {
              app: ["starting", null],
              lb: ["unknown", null],
              off: ["unknown", null],
              hidden: ["unknown", null]
            }
          )
          const request = yield* next(server.held, "the first check")
          assert.deepStrictEqual([request.method, request.path], ["HEAD", "/held/app"])
          yield* request.respond(200)
          const map = yield* waitFor("app healthy", (m) => m.app?.status === "healthy")
          assert.isNotNull(map.app?.last_check)
          assert.isAbove(map.app?.latency_ms ?? 0, 0)
          assert.strictEqual(map.lb?.status, "unknown")
          assert.deepStrictEqual(yield* Ref.get(h.published), [])
          assert.isFalse(
            server.hits.some((hit) => hit.path === "/ok"),
            "disabled and excluded routes are not checked"
          )
        }).pipe(Effect.provide(h.layer))
      }).pipe(Effect.scoped)
  )

  it.live("healthy → unhealthy after `retries` more failures with health/down, then health/up on recovery", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const h = yield* harness([
        recordOf(
          route("app", "http", server.port, { path: "/held/app", interval_ms: 20, timeout_ms: 10_000, retries: 2 })
        )
      ])
      yield* Effect.gen(function* () {
        const health = yield* Health
        const status = Effect.map(health.snapshot, (m) => m.app?.status)
        // Each check is held by the server until answered; the next one arriving proves the previous was recorded.
        yield* (yield* next(server.held, "check 1")).respond(200)
        yield* waitFor("healthy", (m) => m.app?.status === "healthy")
        yield* (yield* next(server.held, "check 2")).respond(503)
        const third = yield* next(server.held, "check 3")
        assert.strictEqual(yield* status, "healthy", "first failure tolerated")
        yield* third.respond(503)
        const fourth = yield* next(server.held, "check 4")
        assert.strictEqual(yield* status, "healthy", "second failure tolerated")
        assert.deepStrictEqual(yield* Ref.get(h.published), [])
        yield* fourth.respond(503)
        yield* waitFor("unhealthy", (m) => m.app?.status === "unhealthy")
        const [down] = yield* Ref.get(h.published)
        assert.deepInclude(down, { level: "warn", category: "health", action: "down" })
        assert.deepInclude(down?.data, { alias: "app", status: "unhealthy", previous: "healthy", error: "HTTP 503" })
        assert.isNumber((down?.data as { latency_ms?: number } | undefined)?.latency_ms)

        yield* (yield* next(server.held, "check 5")).respond(200)
        yield* waitFor("recovered", (m) => m.app?.status === "healthy")
        const events = yield* Ref.get(h.published)
        assert.deepStrictEqual(
          events.map((e) => [e.level, e.action]),
          [
            ["warn", "down"],
            ["info", "up"]
          ]
        )
        assert.deepInclude(events[1]?.data, { alias: "app", status: "healthy", previous: "unhealthy" })
        assert.notProperty(events[1]?.data, "error")
      }).pipe(Effect.provide(h.layer))
    }).pipe(Effect.scoped)
  )

  it.live("a removed route's monitor is stopped (its request torn down, no more checks) and its entry is gone", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const gone = recordOf(
        route("gone", "http", server.port, { path: "/held/gone", interval_ms: 20, timeout_ms: 10_000 })
      )
      const stay = recordOf(route("stay", "http", server.port, null))
      const h = yield* harness([gone, stay])
      yield* Effect.gen(function* () {
        yield* (yield* next(server.held, "check 1")).respond(200)
        yield* waitFor("healthy", (m) => m.gone?.status === "healthy")
        yield* next(server.held, "check 2 (left in flight)")
        yield* SubscriptionRef.set(h.table, [stay])
        const map = yield* waitFor("gone removed", (m) => !("gone" in m))
        assert.deepStrictEqual(Object.keys(map), ["stay"])
        const aborted = yield* next(server.aborted, "the in-flight check to be torn down")
        assert.strictEqual(aborted.path, "/held/gone")
        // With a 20 ms interval a live monitor would have sent ~15 checks in this window.
        yield* nothingWithin(server.held, 300)
      }).pipe(Effect.provide(h.layer))
    }).pipe(Effect.scoped)
  )

  it.live("a route whose check config changes is restarted; other changes leave its monitor alone", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const hc = { interval_ms: 20, timeout_ms: 10_000 }
      const app = route("app", "http", server.port, { ...hc, path: "/held/a" })
      const h = yield* harness([recordOf(app)])
      yield* Effect.gen(function* () {
        yield* (yield* next(server.held, "check 1")).respond(200)
        yield* waitFor("healthy", (m) => m.app?.status === "healthy")
        const second = yield* next(server.held, "check 2")

        // Unrelated field changes + a new route: the table is re-synced but app keeps its monitor.
        yield* SubscriptionRef.set(h.table, [
          recordOf({ ...app, homepage: { show: true, name: "App" } }),
          recordOf(route("marker", "http", server.port, null))
        ])
        const synced = yield* waitFor("marker added", (m) => "marker" in m)
        assert.strictEqual(synced.app?.status, "healthy", "not restarted")
        assert.isTrue(Option.isNone(yield* Queue.poll(server.aborted)), "in-flight check not torn down")
        yield* second.respond(200)

        // A new path is a new check: the monitor restarts (status back to starting) and the old one stops.
        const third = yield* next(server.held, "check 3")
        assert.strictEqual(third.path, "/held/a")
        yield* SubscriptionRef.set(h.table, [recordOf(route("app", "http", server.port, { ...hc, path: "/held/b" }))])
        yield* waitFor("restarted", (m) => m.app?.status === "starting" && !("marker" in m))
        assert.strictEqual((yield* next(server.aborted, "old monitor's check torn down")).path, "/held/a")
        const restarted = yield* next(server.held, "first check of the new monitor")
        assert.strictEqual(restarted.path, "/held/b")
        yield* restarted.respond(200)
        yield* waitFor("healthy again", (m) => m.app?.status === "healthy")
        const after = yield* next(server.held, "next check")
        assert.strictEqual(after.path, "/held/b")
      }).pipe(Effect.provide(h.layer))
    }).pipe(Effect.scoped)
  )

  it.live("changes emits on status and route-set changes, not on every check", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const h = yield* harness([recordOf(route("tick", "http", server.port, { path: "/ok", interval_ms: 10 }))])
      yield* Effect.gen(function* () {
        const health = yield* Health
        const seen = yield* Ref.make<ReadonlyArray<HealthMap>>([])
        yield* health.changes.pipe(
          Stream.runForEach((m) => Ref.update(seen, (all) => [...all, m])),
          Effect.forkScoped
        )
        yield* waitFor("healthy", (m) => m.tick?.status === "healthy")
        for (let i = 0; i < 20; i++) yield* next(server.arrivals, `check ${i}`)
        const maps = yield* Ref.get(seen)
        assert.isAtMost(maps.length, 2, JSON.stringify(maps))
        assert.strictEqual(maps.at(-1)?.tick?.status, "healthy")
        yield* SubscriptionRef.set(h.table, [])
        yield* waitFor("route removed", (m) => Object.keys(m).length === 0)
      }).pipe(Effect.provide(h.layer), Effect.scoped)
    }).pipe(Effect.scoped)
  )

  it.live("closing the layer stops every monitor and tears down its socket", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      const h = yield* harness([
        recordOf(route("app", "http", server.port, { path: "/held/app", interval_ms: 20, timeout_ms: 10_000 }))
      ])
      yield* Effect.gen(function* () {
        yield* (yield* next(server.held, "check 1")).respond(200)
        yield* waitFor("healthy", (m) => m.app?.status === "healthy")
        yield* next(server.held, "check 2 (left in flight)")
      }).pipe(Effect.provide(h.layer))
      assert.strictEqual((yield* next(server.aborted, "in-flight check torn down")).path, "/held/app")
      yield* nothingWithin(server.held, 300)
    }).pipe(Effect.scoped)
  )

  it.live("a failing event store does not stop health checking", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      server.toggle.status = 503
      const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>([
        recordOf(route("app", "http", server.port, { path: "/toggle", interval_ms: 10, retries: 0 }))
      ])
      const brokenEvents = Layer.succeed(Events)(
        Events.of({
          publish: () => Effect.die(new Error("store is down")),
          transaction: () => Effect.die(new Error("store is down")),
          history: () => Effect.succeed([]),
          follow: () => Stream.empty
        })
      )
      const layer = HealthLive.layer.pipe(Layer.provide(routesLayer(table)), Layer.provide(brokenEvents))
      const logged: Array<string> = []
      const captureLogs = Logger.layer([Logger.make(({ message }) => logged.push(String(message)))])
      yield* Effect.gen(function* () {
        yield* waitFor("unhealthy", (m) => m.app?.status === "unhealthy")
        server.toggle.status = 200
        yield* waitFor("healthy", (m) => m.app?.status === "healthy")
        server.toggle.status = 503
        yield* waitFor("unhealthy again", (m) => m.app?.status === "unhealthy")
      }).pipe(Effect.provide(layer), Effect.provide(captureLogs))
      assert.isTrue(
        logged.some((line) => line.startsWith("health event not published")),
        JSON.stringify(logged)
      )
    }).pipe(Effect.scoped)
  )

  it.effect(
    "an edit is neither an outage nor a recovery: a fixed route gets health/up, one still down no new down",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const missing = path.join(dir, "missing")
        // Timeouts longer than any step of the clock below: a check in flight while the clock moves does not time out.
        // No retries: every verdict is a first failure's (the grace an edit keeps is the next test's).
        const files = (root: string, timeout_ms = 5000) =>
          recordOf(route("files", "fileserver", 0, { interval_ms: 1000, timeout_ms, retries: 0 }, { root }))
        const h = yield* harness([files(missing)])
        yield* Effect.gen(function* () {
          const health = yield* Health
          const { until, edit } = yield* clockDriven(h.table, "files")
          const events = Effect.map(Ref.get(h.published), (es) =>
            es.map((e) => [e.action, (e.data as { previous: string }).previous])
          )

          yield* TestClock.adjust("1 second")
          yield* until("the new route down", (i) => i?.status === "unhealthy")
          // The operator fixes the root: the route was down, so its recovery is reported.
          assert.strictEqual((yield* edit(files(dir), "fixed"))?.status, "healthy")
          // Broken again, then a timeout edit while still down: one outage, one `health/down`.
          assert.strictEqual((yield* edit(files(missing), "broken"))?.status, "unhealthy")
          // Two seconds down, then edited: the outage the map shows keeps its length (`uptime_s`).
          yield* TestClock.adjust("2 seconds")
          const stillDown = yield* edit(files(missing, 6000), "timeout edited")
          assert.strictEqual(stillDown?.status, "unhealthy")
          // Read on the test's clock (`until` reads on the live one).
          const outage = (yield* health.snapshot).files?.uptime_s ?? 0
          assert.isTrue(outage >= 2 && outage <= 4, `down for ${outage} s`)
          // One more check: the monitor records (and publishes) a check before it waits for the next one.
          yield* TestClock.adjust("1 second")
          yield* until("the next check", (i) => i?.last_check !== stillDown?.last_check)
          assert.deepStrictEqual(yield* events, [
            ["down", "starting"],
            ["up", "unhealthy"],
            ["down", "healthy"]
          ])
        }).pipe(Effect.provide(h.layer))
      }).pipe(Effect.scoped)
  )

  it.effect("an edit keeps a healthy route's retries: one failed check after an interval edit publishes nothing", () =>
    Effect.gen(function* () {
      const root = path.join(yield* tempDir, "site")
      const away = `${root}.away`
      yield* Effect.sync(() => fs.mkdirSync(root))
      const files = (interval_ms: number) =>
        recordOf(route("files", "fileserver", 0, { interval_ms, timeout_ms: 5000, retries: 3 }, { root }))
      const h = yield* harness([files(1000)])
      yield* Effect.gen(function* () {
        const health = yield* Health
        const { until, edit } = yield* clockDriven(h.table, "files")
        yield* TestClock.adjust("1 second")
        yield* until("healthy", (i) => i?.status === "healthy")
        // The target fails once, just as the operator slows the check down: the new monitor's first check fails.
        yield* Effect.sync(() => fs.renameSync(root, away))
        const edited = yield* edit(files(2000), "interval edited")
        assert.strictEqual(edited?.status, "starting", "a tolerated failure: no verdict yet, and no outage")
        // The target is back by the next check: healthy again, as it was before the edit.
        yield* Effect.sync(() => fs.renameSync(away, root))
        yield* TestClock.adjust("2 seconds")
        yield* until("the next check", (i) => i?.last_check !== edited?.last_check)
        assert.strictEqual((yield* health.snapshot).files?.status, "healthy")
        assert.deepStrictEqual(yield* Ref.get(h.published), [])
      }).pipe(Effect.provide(h.layer))
    }).pipe(Effect.scoped)
  )

  it.effect("checks start on a grid of a tenth of their interval, so checks due within one step wake up together", () =>
    Effect.gen(function* () {
      // When each check started, by the test's clock, from the `Health.check` spans; `ended` counts finished checks.
      const started: Array<number> = []
      const ended = yield* Queue.unbounded<void>()
      const native = yield* Tracer.Tracer
      const recording = Tracer.make({
        span(options) {
          const span = native.span(options)
          if (options.name !== "Health.check") return span
          started.push(Number(options.startTime / 1_000_000n))
          const end = span.end.bind(span)
          span.end = (endTime, exit) => {
            end(endTime, exit)
            Queue.offerUnsafe(ended, undefined)
          }
          return span
        }
      })
      const checked = (n: number) =>
        TestClock.withLive(
          Effect.timeoutOrElse(Effect.replicateEffect(Queue.take(ended), n), {
            duration: 5000,
            orElse: () => Effect.die(new Error(`timed out waiting for ${n} checks; started at ${started}`))
          })
        )
      // Twenty file-server routes checked every second (a grid of 100 ms): their probe is a stat of a directory.
      const routes = Array.from({ length: 20 }, (_, i) =>
        recordOf(route(`dir${i}`, "fileserver", 0, { interval_ms: 1000 }, { root: os.tmpdir() }))
      )
      const h = yield* harness(routes)
      yield* Effect.gen(function* () {
        yield* Health
        // First checks: at random points of the first second, each put off to the next tenth of a second.
        yield* TestClock.adjust("1037 millis")
        yield* checked(routes.length)
        for (const at of started) assert.isTrue(at % 100 === 0 && at <= 1000, `a check at ${at} ms`)
        // Later checks: an interval after the previous one ended, put off to the grid too (the test's clock stands
        // on a grid point while a probe runs, or at 1,037 ms once the adjustment is done).
        yield* TestClock.adjust("2 seconds")
        yield* checked(routes.length)
        assert.isAtLeast(started.length, 2 * routes.length)
        for (const at of started) assert.isTrue(at % 100 === 0, `a check at ${at} ms`)
      }).pipe(Effect.provide(h.layer), Effect.provideService(Tracer.Tracer, recording))
      // The delay to the grid point at least `minimum` away: 1,037 + 1,000 ms is put off to 2,100 ms.
      assert.strictEqual(HealthLive.delayToGrid(1037, 1000, 100), 1063)
      assert.strictEqual(HealthLive.delayToGrid(1000, 1000, 100), 1000)
      assert.strictEqual(HealthLive.delayToGrid(0, 999, 100), 1000)
      assert.strictEqual(HealthLive.delayToGrid(5, 0, 1), 0)
    })
  )
})

describe("Health test layers", () => {
  const healthy: HealthMap = { a: { status: "healthy", latency_ms: 1, uptime_s: 2, last_check: null } }

  it.live("layerTest reports its map and keeps the feed open", () =>
    Effect.gen(function* () {
      const health = yield* Health
      assert.deepStrictEqual(yield* health.snapshot, healthy)
      assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(health.changes, 1)), [healthy])
      const more = yield* health.changes.pipe(Stream.take(2), Stream.runCollect, Effect.timeoutOption(20))
      assert.isTrue(Option.isNone(more))
    }).pipe(Effect.provide(Health.layerTest(healthy)))
  )

  it.effect("layerMemory follows what the test sets", () =>
    Effect.gen(function* () {
      const health = yield* Health
      const memory = yield* HealthMemory
      const subscribed = yield* Deferred.make<void>()
      const fiber = yield* health.changes.pipe(
        Stream.tap(() => Deferred.succeed(subscribed, undefined)),
        Stream.take(3),
        Stream.runCollect,
        Effect.forkScoped
      )
      yield* Deferred.await(subscribed)
      yield* memory.update((m) => ({ ...m, b: { status: "unhealthy", latency_ms: 0, uptime_s: 0, last_check: null } }))
      yield* memory.set({})
      const seen = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        seen.map((m) => Object.keys(m)),
        [["a"], ["a", "b"], []]
      )
      assert.deepStrictEqual(yield* health.snapshot, {})
    }).pipe(Effect.provide(Health.layerMemory(healthy)), Effect.scoped)
  )
})
