import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { EventId, HealthEvents } from "@gatehouse-edge/contract/domain"
import { Cause, Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { v7 } from "uuid"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Events } from "../../src/events/Events.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"
import { actions, busIn, collect, eventually, input, labelOf, openBus, repositoryAt } from "./TestBus.js"

describe("EventBus publish and history", () => {
  it.effect("assigns a UUIDv7 id and an RFC 3339 timestamp from the Clock", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      yield* TestClock.adjust("1500 millis")
      const down = { alias: "app", status: "unhealthy", previous: "healthy", latency_ms: 3 } as const
      const event = yield* bus.publish(HealthEvents.down(down))
      assert.isTrue(Schema.is(EventId)(event.id))
      assert.strictEqual(event.id.slice(0, 13), "00000000-05dc", "the id carries the clock's 1500 ms")
      assert.strictEqual(event.timestamp, "1970-01-01T00:00:01.500Z")
      assert.deepStrictEqual(
        { level: event.level, category: event.category, action: event.action, data: event.data },
        { level: "warn", category: "health", action: "down", data: down }
      )
      assert.deepStrictEqual(yield* bus.history({}), [event])
    })
  )

  it.effect("ids strictly increase, also for many events in the same millisecond", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const published = yield* Effect.forEach(
        Array.from({ length: 300 }, (_, i) => i),
        (i) => bus.publish(input(`e${i}`))
      )
      // Also when published concurrently: the bus serialises them.
      const concurrent = yield* Effect.forEach(
        Array.from({ length: 100 }, (_, i) => i),
        (i) => bus.publish(input(`c${i}`)),
        { concurrency: "unbounded" }
      )
      const history = yield* bus.history({})
      assert.strictEqual(history.length, 400)
      for (let i = 1; i < history.length; i++) assert.isTrue(history[i - 1]!.id < history[i]!.id)
      assert.deepStrictEqual(history.slice(0, 300), published)
      assert.sameMembers(
        history.slice(300).map((e) => e.id),
        concurrent.map((e) => e.id)
      )
    })
  )

  it.effect("concurrent publishers reach subscribers in id order, even when storing yields", () =>
    Effect.gen(function* () {
      // A store that yields a varying number of times before storing: without the bus's lock, concurrent
      // publishes would store (and deliver) out of id order.
      let calls = 0
      const { bus } = yield* openBus(path.join(yield* tempDir, "gatehouse.db"), {}, (repository) => ({
        ...repository,
        insert: (events, cap) =>
          Effect.andThen(Effect.repeat(Effect.yieldNow, { times: (calls++ * 7) % 5 }), repository.insert(events, cap))
      }))
      const follower = yield* collect(bus.follow({}).pipe(Stream.take(50)))
      yield* eventually(
        "the follower to subscribe",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => bus.publish(input(`c${i}`)),
        { concurrency: "unbounded" }
      )
      yield* Fiber.join(follower.fiber)
      const ids = follower.received.map((e) => e.id)
      assert.deepStrictEqual(ids, [...ids].sort(), "delivered in id order")
      assert.deepStrictEqual(
        ids,
        (yield* bus.history({})).map((e) => e.id),
        "the same as the history"
      )
    })
  )

  it.effect("keeps only the newest historyCap events", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 3 })
      for (const a of ["a", "b", "c", "d", "e"]) yield* bus.publish(input(a))
      assert.deepStrictEqual(actions(yield* bus.history({})), ["c", "d", "e"])
    })
  )

  it.effect("history passes since, limit and category to the store", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const a = yield* bus.publish(input("a"))
      yield* bus.publish(input("b", "health"))
      yield* bus.publish(input("c"))
      yield* bus.publish(input("d"))
      // With since, limit keeps the oldest after it ("c"; the newest, "d", skipped it).
      assert.deepStrictEqual(actions(yield* bus.history({ since: a.id, category: "config", limit: 1 })), ["c"])
      assert.deepStrictEqual(actions(yield* bus.history({ since: a.id })), ["b", "c", "d"])
      assert.deepStrictEqual(actions(yield* bus.history({ category: "health" })), ["b"])
    })
  )

  it.effect("stores and delivers data as JSON, the same in both", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      // Producers go through typed constructors; the bus still makes the live copy exactly the stored JSON,
      // e.g. an optional field set to `undefined` is absent from both.
      const loose = { alias: "app", status: "healthy", previous: "error", latency_ms: 1.5, error: undefined }
      const event = yield* bus.publish(HealthEvents.up(loose as unknown as Parameters<typeof HealthEvents.up>[0]))
      assert.deepStrictEqual(event.data, { alias: "app", status: "healthy", previous: "error", latency_ms: 1.5 })
      assert.isFalse("error" in event.data)
      assert.deepStrictEqual(yield* bus.history({}), [event])
    })
  )

  it.effect("the history survives a restart, and new ids sort after it even if the clock is behind", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* TestClock.adjust("1 hour")
      const before = yield* Effect.scoped(
        Effect.gen(function* () {
          const { bus } = yield* busIn(dir)
          return [yield* bus.publish(input("a")), yield* bus.publish(input("b"))]
        })
      )
      // A "future" event stored by a machine whose clock ran ahead.
      const future = { ...input("future"), id: v7({ msecs: 2 ** 44, seq: 0 }), timestamp: "x" } as Event
      yield* Effect.scoped(
        Effect.flatMap(repositoryAt(path.join(dir, "gatehouse.db")), (repository) => repository.append(future, 1_000))
      )
      const { bus } = yield* busIn(dir)
      assert.deepStrictEqual(yield* bus.history({}), [...before, future])
      const after = yield* bus.publish(input("after restart"))
      assert.isTrue(after.id > future.id)
      assert.deepStrictEqual(actions(yield* bus.history({})), ["a", "b", "future", "after restart"])
    })
  )

  it.effect("stores an event before delivering it: one that cannot be stored is never delivered", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const { bus } = yield* openBus(path.join(dir, "gatehouse.db"), {}, (repository) => ({
        ...repository,
        insert: (events, cap) =>
          events.some((event) => labelOf(event) === "boom")
            ? Effect.die(new Error("disk full"))
            : repository.insert(events, cap)
      }))
      const { received, fiber } = yield* collect(bus.follow({}).pipe(Stream.takeUntil((e) => labelOf(e) === "done")))
      yield* eventually(
        "the follower to subscribe",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      const exit = yield* Effect.exit(bus.publish(input("boom")))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), "a storage failure is a defect")
      yield* bus.publish(input("done"))
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(actions(received), ["done"])
      assert.deepStrictEqual(actions(yield* bus.history({})), ["done"])
    })
  )

  it.effect("EventBus.layer provides Events on a Store layer", () =>
    Effect.gen(function* () {
      const events = yield* Events
      const published = yield* events.publish(input("via layer"))
      assert.deepStrictEqual(yield* events.history({}), [published])
    }).pipe(
      Effect.provide(
        EventBus.layer({ historyCap: 10 }).pipe(
          Layer.provide(EventRepository.layer),
          Layer.provide(StoreLive.layerMemory)
        )
      )
    )
  )
})
