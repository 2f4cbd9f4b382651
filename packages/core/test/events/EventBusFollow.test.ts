import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Event, EventQuery } from "@gatehouse-edge/contract/domain"
import { SubscriberTooSlow } from "@gatehouse-edge/contract/domain"
import { Deferred, Effect, Exit, Fiber, Scope, Stream } from "effect"
import { tempDir } from "../store/TempDir.js"
import { actions, assertContiguousFollows, busIn, collect, eventually, input, labelOf, openBus } from "./TestBus.js"

const untilDone = <E>(stream: Stream.Stream<Event, E>) => stream.pipe(Stream.takeUntil((e) => labelOf(e) === "done"))

/** A gate that, once armed, holds the next caller until released (and tells the test it is holding). */
const makeGate = Effect.gen(function* () {
  let armed = false
  const holding = yield* Deferred.make<void>()
  const release = yield* Deferred.make<void>()
  const pass = Effect.suspend(() => {
    if (!armed) return Effect.void
    armed = false
    return Effect.andThen(Deferred.succeed(holding, undefined), Deferred.await(release))
  })
  return {
    arm: Effect.sync(() => (armed = true)),
    pass,
    holding: Deferred.await(holding),
    release: Deferred.succeed(release, undefined)
  }
})

describe("EventBus follow", () => {
  it.effect("gives the history, then live events, filtered like history", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const a = yield* bus.publish(input("a"))
      yield* bus.publish(input("b", "health"))
      yield* bus.publish(input("c"))
      const all = yield* collect(untilDone(bus.follow({})))
      const config = yield* collect(untilDone(bus.follow({ category: "config" })))
      const sinceA = yield* collect(untilDone(bus.follow({ since: a.id })))
      const newest = yield* collect(untilDone(bus.follow({ limit: 1 })))
      const none = yield* collect(untilDone(bus.follow({ limit: 0 })))
      yield* eventually(
        "5 subscribers",
        Effect.map(bus.subscriberCount, (n) => n === 5)
      )
      yield* bus.publish(input("d", "health"))
      yield* bus.publish(input("e"))
      yield* bus.publish(input("done", "config"))
      for (const f of [all, config, sinceA, newest, none]) yield* Fiber.join(f.fiber)
      assert.deepStrictEqual(actions(all.received), ["a", "b", "c", "d", "e", "done"])
      assert.deepStrictEqual(actions(config.received), ["a", "c", "e", "done"])
      assert.deepStrictEqual(actions(sinceA.received), ["b", "c", "d", "e", "done"])
      assert.deepStrictEqual(actions(newest.received), ["c", "d", "e", "done"])
      assert.deepStrictEqual(actions(none.received), ["d", "e", "done"])
    })
  )

  it.effect("a resume (since) replays every stored event after it, past any limit and page, then live ones", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 5000 })
      const first = yield* bus.publish(input("e0"))
      for (let i = 1; i < 1200; i++) yield* bus.publish(input(`e${i}`, i % 2 === 0 ? "config" : "health"))
      // The HTTP API sends every follow a limit (100 by default): a resume must not keep only the newest 100.
      const resumed = yield* collect(untilDone(bus.follow({ since: first.id, limit: 100 })))
      const configOnly = yield* collect(untilDone(bus.follow({ since: first.id, limit: 100, category: "config" })))
      yield* eventually(
        "2 subscribers",
        Effect.map(bus.subscriberCount, (n) => n === 2)
      )
      yield* bus.publish(input("done", "config"))
      yield* Fiber.join(resumed.fiber)
      yield* Fiber.join(configOnly.fiber)
      const expected = Array.from({ length: 1199 }, (_, i) => `e${i + 1}`)
      assert.deepStrictEqual(actions(resumed.received), [...expected, "done"])
      assert.deepStrictEqual(actions(configOnly.received), [...expected.filter((_, i) => (i + 1) % 2 === 0), "done"])
    })
  )

  it.effect("no duplicate: an event stored before the snapshot but delivered after subscribing comes once", () =>
    Effect.gen(function* () {
      const gate = yield* makeGate
      const { bus } = yield* openBus(path.join(yield* tempDir, "gatehouse.db"), {}, (repository) => ({
        ...repository,
        // Held once the transaction has committed, before the bus delivers.
        transaction: (effect) => Effect.tap(repository.transaction(effect), () => gate.pass)
      }))
      yield* bus.publish(input("a"))
      yield* gate.arm
      const publishing = yield* Effect.forkChild(bus.publish(input("b")))
      yield* gate.holding // "b" is stored, not yet delivered
      const follower = yield* collect(untilDone(bus.follow({})))
      yield* eventually(
        "the snapshot with b",
        Effect.sync(() => follower.received.length === 2)
      )
      yield* gate.release
      yield* Fiber.join(publishing)
      yield* bus.publish(input("done"))
      yield* Fiber.join(follower.fiber)
      assert.deepStrictEqual(actions(follower.received), ["a", "b", "done"])
    })
  )

  it.effect("no gap: an event published while the snapshot is read is delivered live", () =>
    Effect.gen(function* () {
      const gate = yield* makeGate
      const { bus } = yield* openBus(path.join(yield* tempDir, "gatehouse.db"), {}, (repository) => ({
        ...repository,
        list: (q: EventQuery) => Effect.tap(repository.list(q), () => gate.pass)
      }))
      yield* bus.publish(input("a"))
      yield* gate.arm
      const follower = yield* collect(untilDone(bus.follow({})))
      yield* gate.holding // the snapshot ["a"] is read, not yet emitted
      yield* bus.publish(input("b"))
      yield* gate.release
      yield* eventually(
        "the subscriber",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* bus.publish(input("done"))
      yield* Fiber.join(follower.fiber)
      assert.deepStrictEqual(actions(follower.received), ["a", "b", "done"])
    })
  )

  it.live("no gap and no duplicate while followers subscribe during concurrent publishing", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 10_000 })
      const publisher = yield* Effect.forkChild(
        Effect.gen(function* () {
          for (let i = 0; i < 300; i++) {
            yield* bus.publish(input(`e${i}`, i % 3 === 0 ? "health" : "config"))
            yield* Effect.yieldNow
          }
          yield* bus.publish(input("done"))
        })
      )
      // Followers join at different points of the stream; some with a limit, some with a category.
      const followers = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) =>
          Effect.gen(function* () {
            for (let n = 0; n < i * 25; n++) yield* Effect.yieldNow
            const query: EventQuery = i % 3 === 1 ? { limit: 5 } : i % 3 === 2 ? { category: "config" } : {}
            return { query, ...(yield* collect(untilDone(bus.follow(query)))) }
          })
      )
      yield* Fiber.join(publisher)
      const history = yield* bus.history({})
      assert.strictEqual(history.length, 301)
      // A contiguous run of the (filtered) history up to "done": nothing skipped, nothing twice.
      yield* assertContiguousFollows(history, followers)
    })
  )

  it.effect("drops a subscriber more than bufferSize behind, without slowing the others", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const gotFirst = yield* Deferred.make<void>()
      const unblock = yield* Deferred.make<void>()
      const slowSeen: Array<string> = []
      const slow = yield* bus.follow({}, { bufferSize: 3 }).pipe(
        Stream.runForEach((e) =>
          Effect.gen(function* () {
            slowSeen.push(labelOf(e))
            if (slowSeen.length === 1) {
              yield* Deferred.succeed(gotFirst, undefined)
              yield* Deferred.await(unblock) // stuck on the first event
            }
          })
        ),
        Effect.forkChild
      )
      const fast = yield* collect(untilDone(bus.follow({})))
      yield* eventually(
        "2 subscribers",
        Effect.map(bus.subscriberCount, (n) => n === 2)
      )

      // Published before the slow one pulls anything: it must take e1 alone, leaving e2 and e3 queued.
      for (const a of ["e1", "e2", "e3"]) yield* bus.publish(input(a))
      yield* Deferred.await(gotFirst)
      assert.strictEqual(yield* bus.subscriberCount, 2)
      yield* bus.publish(input("e4"))
      assert.strictEqual(yield* bus.subscriberCount, 2, "exactly bufferSize behind is still fine")
      yield* bus.publish(input("e5"))
      assert.strictEqual(yield* bus.subscriberCount, 1, "one more and the slow one is dropped")
      for (const a of ["e6", "e7", "done"]) yield* bus.publish(input(a))

      yield* Fiber.join(fast.fiber)
      assert.deepStrictEqual(actions(fast.received), ["e1", "e2", "e3", "e4", "e5", "e6", "e7", "done"])
      yield* Deferred.succeed(unblock, undefined)
      const error = yield* Effect.flip(Fiber.join(slow))
      assert.instanceOf(error, SubscriberTooSlow)
      assert.strictEqual(error.buffer_size, 3)
      assert.strictEqual(error.message, "subscriber fell more than 3 events behind")
      assert.deepStrictEqual(slowSeen, ["e1"], "its buffered events were dropped with it")
    })
  )

  it.effect("events of other categories do not count against a filtered subscriber's buffer", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const gotFirst = yield* Deferred.make<void>()
      const unblock = yield* Deferred.make<void>()
      const seen: Array<string> = []
      const follower = yield* bus.follow({ category: "config" }, { bufferSize: 1 }).pipe(
        Stream.takeUntil((e) => labelOf(e) === "done"),
        Stream.runForEach((e) =>
          Effect.gen(function* () {
            seen.push(labelOf(e))
            if (seen.length === 1) {
              yield* Deferred.succeed(gotFirst, undefined)
              yield* Deferred.await(unblock)
            }
          })
        ),
        Effect.forkChild
      )
      yield* eventually(
        "the subscriber",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* bus.publish(input("first"))
      yield* Deferred.await(gotFirst)
      for (let i = 0; i < 50; i++) yield* bus.publish(input(`h${i}`, "health"))
      yield* bus.publish(input("done"))
      yield* Deferred.succeed(unblock, undefined)
      yield* Fiber.join(follower)
      assert.deepStrictEqual(seen, ["first", "done"])
    })
  )

  it.effect("closing a follow stream releases its subscription", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      yield* bus.publish(input("a"))

      // Completed by the consumer (take).
      assert.deepStrictEqual(actions(yield* Stream.runCollect(bus.follow({}).pipe(Stream.take(1)))), ["a"])
      assert.strictEqual(yield* bus.subscriberCount, 0)

      // Interrupted while waiting for live events.
      const waiting = yield* collect(bus.follow({}))
      yield* eventually(
        "the subscriber",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* Fiber.interrupt(waiting.fiber)
      assert.strictEqual(yield* bus.subscriberCount, 0)

      // Failed downstream.
      const failing = bus.follow({}).pipe(Stream.mapEffect(() => Effect.fail("consumer broke")))
      assert.strictEqual(yield* Effect.flip(Stream.runDrain(failing)), "consumer broke")
      assert.strictEqual(yield* bus.subscriberCount, 0)
    })
  )

  it.effect("follow streams end when the bus shuts down", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const scope = yield* Scope.make()
      const { bus } = yield* Scope.provide(busIn(dir), scope)
      yield* bus.publish(input("a"))
      const follower = yield* collect(bus.follow({}))
      yield* eventually(
        "the subscriber",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* Scope.close(scope, Exit.void)
      yield* Fiber.join(follower.fiber)
      assert.deepStrictEqual(actions(follower.received), ["a"])
      assert.strictEqual(yield* bus.subscriberCount, 0)
    })
  )
})
