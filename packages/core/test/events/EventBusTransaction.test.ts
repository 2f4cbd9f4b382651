import { assert, describe, it } from "@effect/vitest"
import type { EventQuery } from "@gatehouse-edge/contract/domain"
import { Cause, Data, Effect, Exit, Fiber, Stream } from "effect"
import { actions, assertContiguousFollows, busWithStore, collect, eventually, input, labelOf } from "./TestBus.js"

class Refused extends Data.TaggedError("Refused")<{}> {}

describe("EventBus transaction", () => {
  it.effect("stores a change and the events it returns together, and returns its result", () =>
    Effect.gen(function* () {
      const { bus, things, add } = yield* busWithStore()
      const result = yield* bus.transaction(
        Effect.as(Effect.andThen(add("a"), add("b")), { value: 42, events: [input("a"), input("b")] })
      )
      assert.strictEqual(result, 42)
      assert.deepStrictEqual(yield* things, ["a", "b"])
      assert.deepStrictEqual(actions(yield* bus.history({})), ["a", "b"])
    })
  )

  it.effect("a change that fails stores nothing, neither its writes nor events", () =>
    Effect.gen(function* () {
      const { bus, things, add } = yield* busWithStore()
      const refused = yield* Effect.exit(bus.transaction(Effect.andThen(add("a"), Effect.fail(new Refused()))))
      assert.isTrue(Exit.isFailure(refused) && Cause.hasFails(refused.cause))
      assert.instanceOf(Cause.squash((refused as Exit.Failure<unknown, Refused>).cause), Refused)
      const died = yield* Effect.exit(bus.transaction(Effect.andThen(add("b"), Effect.die(new Error("bug")))))
      assert.isTrue(Exit.isFailure(died) && Cause.hasDies(died.cause))
      assert.deepStrictEqual(yield* things, [])
      assert.deepStrictEqual(yield* bus.history({}), [])
    })
  )

  it.effect("events that cannot be stored undo the change, and are never delivered", () =>
    Effect.gen(function* () {
      const { bus, things, add } = yield* busWithStore((repository) => ({
        ...repository,
        insert: (events, cap) =>
          events.some((e) => labelOf(e) === "boom")
            ? Effect.die(new Error("disk full"))
            : repository.insert(events, cap)
      }))
      const follower = yield* collect(bus.follow({}).pipe(Stream.takeUntil((e) => labelOf(e) === "done")))
      yield* eventually(
        "the follower to subscribe",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      const exit = yield* Effect.exit(
        bus.transaction(Effect.as(add("a"), { value: undefined, events: [input("ok"), input("boom")] }))
      )
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      assert.deepStrictEqual(yield* things, [], "the change was rolled back with its events")
      yield* bus.publish(input("done"))
      yield* Fiber.join(follower.fiber)
      assert.deepStrictEqual(actions(follower.received), ["done"])
    })
  )

  it.effect("events are delivered once their change is committed, in id order", () =>
    Effect.gen(function* () {
      const { bus, things, add } = yield* busWithStore()
      // What the follower could read of the store when each event arrived.
      const seen: Array<readonly [string, ReadonlyArray<string>]> = []
      const follower = yield* bus.follow({}).pipe(
        Stream.takeUntil((e) => labelOf(e) === "done"),
        Stream.runForEach((event) => Effect.map(things, (rows) => void seen.push([labelOf(event), rows]))),
        Effect.forkChild
      )
      yield* eventually(
        "the follower to subscribe",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* Effect.forEach(
        ["x", "y", "z"],
        (name) =>
          bus.transaction(Effect.as(add(name), { value: undefined, events: [input(`${name}1`), input(`${name}2`)] })),
        { concurrency: "unbounded" }
      )
      yield* bus.publish(input("done"))
      yield* Fiber.join(follower)
      const history = yield* bus.history({})
      assert.deepStrictEqual(
        seen.map(([label]) => label),
        actions(history),
        "delivered in the history's (id) order"
      )
      for (const [label, rows] of seen) {
        if (label !== "done") assert.include(rows, label[0]!, `${label} arrived after its change was committed`)
      }
      // A transaction's events are adjacent: nothing of another change in between.
      const labels = actions(history)
      for (const name of ["x", "y", "z"]) assert.strictEqual(labels.indexOf(`${name}2`), labels.indexOf(`${name}1`) + 1)
    })
  )

  it.live("no gap and no duplicate for followers while transactions and publishes run concurrently", () =>
    Effect.gen(function* () {
      const { bus, add } = yield* busWithStore()
      const writers = yield* Effect.forkChild(
        Effect.forEach(
          Array.from({ length: 60 }, (_, i) => i),
          (i) =>
            i % 3 === 0
              ? bus.publish(input(`p${i}`, "health"))
              : bus.transaction(
                  Effect.as(add(`t${i}`), { value: undefined, events: [input(`t${i}a`), input(`t${i}b`, "health")] })
                ),
          { concurrency: 8 }
        ).pipe(Effect.andThen(bus.publish(input("done"))))
      )
      const followers = yield* Effect.forEach(
        Array.from({ length: 9 }, (_, i) => i),
        (i) =>
          Effect.gen(function* () {
            for (let n = 0; n < i * 10; n++) yield* Effect.yieldNow
            const query: EventQuery = i % 3 === 1 ? { limit: 5 } : i % 3 === 2 ? { category: "config" } : {}
            return {
              query,
              ...(yield* collect(bus.follow(query).pipe(Stream.takeUntil((e) => labelOf(e) === "done"))))
            }
          })
      )
      yield* Fiber.join(writers)
      const history = yield* bus.history({})
      assert.strictEqual(history.length, 20 + 40 * 2 + 1)
      yield* assertContiguousFollows(history, followers)
    })
  )
})
