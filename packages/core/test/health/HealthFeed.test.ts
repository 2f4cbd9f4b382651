import { assert, describe, it } from "@effect/vitest"
import type { HealthInfo, HealthMap } from "@gatehouse-edge/contract/domain"
import { Effect, Queue, Ref, Stream } from "effect"
import { TestClock } from "effect/testing"
import { makeHealthFeed } from "../../src/health/HealthFeed.js"
import { eventually } from "../events/TestBus.js"

const info = (status: HealthInfo["status"], latency_ms: number): HealthInfo => ({
  status,
  latency_ms,
  uptime_s: 0,
  last_check: null
})

/** A feed over a map the test sets, with a signal the test sends, throttled to one map per second (TestClock). */
const harness = Effect.gen(function* () {
  const state = yield* Ref.make<HealthMap>({ app: info("healthy", 1) })
  const snapshots = yield* Ref.make(0)
  const signals = yield* Queue.unbounded<void>()
  const feed = yield* makeHealthFeed({
    snapshot: Effect.andThen(
      Ref.update(snapshots, (n) => n + 1),
      Ref.get(state)
    ),
    signals: Stream.fromQueue(signals),
    intervalMs: 1000
  })
  const watch = Effect.gen(function* () {
    const received: Array<HealthMap> = []
    yield* feed.pipe(
      Stream.runForEach((map) => Effect.sync(() => received.push(map))),
      Effect.forkScoped
    )
    yield* eventually(
      "the first map",
      Effect.sync(() => received.length === 1)
    )
    return received
  })
  const change = (map: HealthMap) => Effect.andThen(Ref.set(state, map), Queue.offer(signals, undefined))
  return { watch, change, snapshots }
})

/** Lets every fiber that can run, run. */
const settle = Effect.repeat(Effect.yieldNow, { times: 100 })

describe("HealthFeed: the shared, throttled health stream", () => {
  it.effect("a latency-only change sends nothing, even after a whole interval has passed", () =>
    Effect.gen(function* () {
      const h = yield* harness
      const received = yield* h.watch
      yield* h.change({ app: info("healthy", 9) })
      yield* TestClock.adjust("1100 millis")
      yield* settle
      assert.strictEqual(received.length, 1, JSON.stringify(received))
      // The same watcher does get a status change, with the current values.
      yield* h.change({ app: info("unhealthy", 12) })
      yield* eventually(
        "the status change",
        Effect.sync(() => received.length === 2)
      )
      assert.deepStrictEqual(received[1], { app: info("unhealthy", 12) })
    }).pipe(Effect.scoped)
  )

  it.effect("at most one map per second; changes within the interval go out together, as the newest state", () =>
    Effect.gen(function* () {
      const h = yield* harness
      const received = yield* h.watch
      yield* h.change({ app: info("unhealthy", 1) })
      yield* eventually(
        "the first change at once",
        Effect.sync(() => received.length === 2)
      )
      yield* h.change({ app: info("healthy", 2) })
      yield* h.change({ app: info("error", 3), web: info("starting", 0) })
      yield* TestClock.adjust("900 millis")
      yield* settle
      assert.strictEqual(received.length, 2, "held until the interval ends")
      yield* TestClock.adjust("200 millis")
      yield* eventually(
        "the held change",
        Effect.sync(() => received.length === 3)
      )
      assert.deepStrictEqual(received[2], { app: info("error", 3), web: info("starting", 0) })
    }).pipe(Effect.scoped)
  )

  it.effect("N watchers cost one upstream evaluation per change", () =>
    Effect.gen(function* () {
      const h = yield* harness
      const watchers = yield* Effect.forEach(Array.from({ length: 10 }), () => h.watch)
      yield* Ref.set(h.snapshots, 0)
      yield* h.change({ app: info("unhealthy", 5) })
      yield* eventually(
        "every watcher to get the change",
        Effect.sync(() => watchers.every((received) => received.length === 2))
      )
      assert.strictEqual(yield* Ref.get(h.snapshots), 1)
    }).pipe(Effect.scoped)
  )

  it.effect("a new watcher starts from a fresh map when the feed is current", () =>
    Effect.gen(function* () {
      const h = yield* harness
      yield* h.watch
      yield* h.change({ app: info("healthy", 42) })
      yield* settle
      const late = yield* h.watch
      assert.deepStrictEqual(late[0], { app: info("healthy", 42) })
    }).pipe(Effect.scoped)
  )
})
