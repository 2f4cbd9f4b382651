import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { TestClock } from "effect/testing"
import { v7 } from "uuid"
import { EventId } from "../../src/domain/Event.js"
import * as EventBus from "../../src/events/EventBus.js"
import { Events } from "../../src/events/Events.js"
import * as SqliteStore from "../../src/store/SqliteStore.js"
import { tempDir } from "../store/TempDir.js"
import { actions, busIn, collect, eventually, openBus } from "./TestBus.js"

const input = (action: string, category = "config") => ({ level: "info" as const, category, action })

describe("EventBus publish and history", () => {
  it.effect("assigns a UUIDv7 id and an RFC 3339 timestamp from the Clock", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      yield* TestClock.adjust("1500 millis")
      const event = yield* bus.publish({ level: "warn", category: "health", action: "down", data: { alias: "app" } })
      assert.isTrue(Schema.is(EventId)(event.id))
      assert.strictEqual(event.id.slice(0, 13), "00000000-05dc", "the id carries the clock's 1500 ms")
      assert.strictEqual(event.timestamp, "1970-01-01T00:00:01.500Z")
      assert.deepStrictEqual(
        { level: event.level, category: event.category, action: event.action, data: event.data },
        { level: "warn", category: "health", action: "down", data: { alias: "app" } }
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
      // A store that yields a varying number of times before appending: without the bus's lock, concurrent
      // publishes would store (and deliver) out of id order.
      let calls = 0
      const { bus } = yield* openBus(path.join(yield* tempDir, "gatehouse.db"), {}, (store) => ({
        events: {
          ...store.events,
          append: (e, cap) =>
            Effect.andThen(Effect.repeat(Effect.yieldNow, { times: (calls++ * 7) % 5 }), store.events.append(e, cap))
        }
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
      assert.deepStrictEqual(actions(yield* bus.history({ since: a.id, category: "config", limit: 1 })), ["d"])
      assert.deepStrictEqual(actions(yield* bus.history({ since: a.id })), ["b", "c", "d"])
      assert.deepStrictEqual(actions(yield* bus.history({ category: "health" })), ["b"])
    })
  )

  it.effect("stores and delivers data as JSON, the same in both", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const event = yield* bus.publish({
        ...input("reload"),
        data: { at: new Date(0), skipped: undefined, nested: { list: [1, "x", null] } }
      })
      assert.deepStrictEqual(event.data, { at: "1970-01-01T00:00:00.000Z", nested: { list: [1, "x", null] } })
      assert.deepStrictEqual(yield* bus.history({}), [event])
      assert.deepStrictEqual((yield* bus.publish(input("no data"))).data, {})
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
      const future = { ...input("future"), id: v7({ msecs: 2 ** 44, seq: 0 }), timestamp: "x", data: {} }
      yield* Effect.scoped(
        Effect.flatMap(SqliteStore.make({ filename: path.join(dir, "gatehouse.db") }), (store) =>
          store.events.append(future, 1_000)
        )
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
      const { bus } = yield* openBus(path.join(dir, "gatehouse.db"), {}, (store) => ({
        events: {
          ...store.events,
          append: (event, cap) =>
            event.action === "boom" ? Effect.die(new Error("disk full")) : store.events.append(event, cap)
        }
      }))
      const { received, fiber } = yield* collect(bus.follow({}).pipe(Stream.takeUntil((e) => e.action === "done")))
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
    }).pipe(Effect.provide(EventBus.layer({ historyCap: 10 }).pipe(Layer.provide(SqliteStore.layerMemory))))
  )
})
