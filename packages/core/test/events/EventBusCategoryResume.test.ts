import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { ApiKeyCreatedEvent, EventNotFound, EventsTrimmed, LoginFailedEvent } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Fiber, Layer, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { v7 } from "uuid"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { storesBefore } from "../store/StoresBefore.js"
import { storesUnderTest } from "../store/StoresUnderTest.js"
import { actions, collect, eventually, input } from "./TestBus.js"

// A follower of one category resumes from its last event (`since`). Other categories' events push that event out
// of the history, though none of its own after it went: the resume must read on, not report a gap (410), and must
// still report one when an event of its category after `since` was dropped.

/** A bus on `store` (a fresh one, or an upgraded one), closed with the scope. */
const busOn = (store: Layer.Layer<SqlClient.SqlClient, unknown>, historyCap: number) =>
  Effect.gen(function* () {
    const built = yield* Layer.build(EventRepository.layer.pipe(Layer.provide(Layer.orDie(store))))
    return yield* EventBus.make({ historyCap }).pipe(
      Effect.provideService(EventRepository, Context.get(built, EventRepository))
    )
  })

const apiKeyCreated = (i: number) =>
  ApiKeyCreatedEvent.make({ name: `key${i}`, prefix: `p${i}`, scopes: ["events:read"], by: "test" })

const failedSignIn = (i: number) =>
  LoginFailedEvent.make({ username: `guess${i}`, method: "session", address: "203.0.113.9", reason: "unknown user" })

/** The error `effect` fails with; when it succeeds instead, a test failure naming the events it gave. */
const failureOf = <E>(effect: Effect.Effect<ReadonlyArray<Event>, E>): Effect.Effect<E> =>
  Effect.flip(
    Effect.flatMap(effect, (events) =>
      Effect.die(new Error(`expected a failure, got ${events.length} events: [${actions(events)}]`))
    )
  )

const idsOf = (events: ReadonlyArray<Event>) => events.map((e) => e.id)

for (const store of storesUnderTest) {
  // On the live clock: @effect/sql-pg's pool does not make progress under TestClock.
  describe.skipIf(store.skip)(`a resume of one category (${store.name})`, () => {
    it.live("reads on past its last event when only other categories' events pushed it out", () =>
      Effect.gen(function* () {
        const bus = yield* busOn(yield* store.open, 2)
        const a = yield* bus.publish(input("A"))
        for (let i = 0; i < 3; i++) yield* bus.publish(apiKeyCreated(i))
        assert.notInclude(idsOf(yield* bus.history({})), a.id, "A was pushed out of the history")
        // Unfiltered, events of other categories after A were dropped: still a gap.
        assert.instanceOf(yield* failureOf(bus.history({ since: a.id })), EventsTrimmed)

        assert.deepStrictEqual(yield* bus.history({ category: "config", since: a.id }), [])
        const follower = yield* collect(bus.follow({ category: "config", since: a.id }).pipe(Stream.take(1)))
        yield* eventually(
          "the follower to subscribe",
          Effect.map(bus.subscriberCount, (n) => n === 1)
        )
        yield* bus.publish(apiKeyCreated(3))
        const b = yield* bus.publish(input("B"))
        yield* Fiber.join(follower.fiber)
        assert.deepStrictEqual(idsOf(follower.received), [b.id])
      }).pipe(Effect.scoped)
    )

    it.live("reports a gap when an event of its category after since was dropped", () =>
      Effect.gen(function* () {
        const bus = yield* busOn(yield* store.open, 2)
        const a = yield* bus.publish(input("A"))
        const b = yield* bus.publish(input("B"))
        for (let i = 0; i < 3; i++) yield* bus.publish(apiKeyCreated(i))
        assert.notInclude(idsOf(yield* bus.history({})), b.id, "B was pushed out of the history")

        const error = yield* failureOf(bus.history({ category: "config", since: a.id }))
        assert.instanceOf(error, EventsTrimmed)
        assert.strictEqual(error.since, a.id)
        const followed = yield* failureOf(Stream.runCollect(bus.follow({ category: "config", since: a.id })))
        assert.instanceOf(followed, EventsTrimmed)
        assert.strictEqual(yield* bus.subscriberCount, 0)
        // From B, the newest config event dropped, nothing of config is missing.
        assert.deepStrictEqual(yield* bus.history({ category: "config", since: b.id }), [])
      }).pipe(Effect.scoped)
    )

    it.live("still tells an id that was never an event here: newer than every one, or older than the first", () =>
      Effect.gen(function* () {
        const bus = yield* busOn(yield* store.open, 2)
        const a = yield* bus.publish(input("A"))
        for (let i = 0; i < 3; i++) yield* bus.publish(apiKeyCreated(i))
        const future = v7({ msecs: Date.UTC(2100, 0, 1), seq: 0 })
        const ancient = v7({ msecs: Date.UTC(2020, 0, 1), seq: 0 })
        assert.isTrue(ancient < a.id, "the store's first event is newer than 2020")
        for (const since of [future, ancient]) {
          const error = yield* failureOf(bus.history({ category: "config", since }))
          assert.instanceOf(error, EventNotFound, since)
        }
      }).pipe(Effect.scoped)
    )

    it.live("of auth, still hears of failed sign-ins dropped beyond their share after a since no longer kept", () =>
      Effect.gen(function* () {
        // A cap of 4 keeps 1 failed sign-in.
        const bus = yield* busOn(yield* store.open, 4)
        const x = yield* bus.publish(input("X"))
        const failed = [yield* bus.publish(failedSignIn(0)), yield* bus.publish(failedSignIn(1))]
        for (let i = 0; i < 3; i++) yield* bus.publish(apiKeyCreated(i))
        assert.deepStrictEqual(
          idsOf(yield* bus.history({})).slice(0, 1),
          [failed[1]!.id],
          "X went with the cap, the first failed sign-in beyond its share"
        )
        // Reading on would give the second failed sign-in as if it followed X.
        assert.instanceOf(yield* failureOf(bus.history({ category: "auth", since: x.id })), EventsTrimmed)
        assert.deepStrictEqual(yield* bus.history({ category: "config", since: x.id }), [])
      }).pipe(Effect.scoped)
    )
  })
}

// Rows as a build before the per-category marks left them: `config` c1, `health` h1 and `config` c2 were stored,
// and its cap dropped c1 and h1 (it marked only h1, the newest it dropped, whatever its category).
const row = (n: number, label: string, category: "config" | "health") => ({
  ...input(label, category),
  id: `0190f5c4-0000-7000-8000-00000000000${n}`,
  timestamp: `2026-01-01T00:00:0${n}.000Z`,
  data: JSON.stringify(input(label, category).data)
})
const [c1, h1, c2] = [row(1, "c1", "config"), row(2, "h1", "health"), row(3, "c2", "config")]
const trimmedByAnOlderBuild = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO events ${sql.insert([c1, h1, c2])}`
  yield* sql`UPDATE event_marks SET first_id = ${c1.id}, trimmed_through = ${h1.id}`
  yield* sql`DELETE FROM events WHERE id <= ${h1.id}`
})

describe.each(storesBefore)("a store from before the per-category marks, upgraded ($name)", (store) => {
  it.live.skipIf(store.skip)("counts every category dropped through its last trim: a gap once, never a miss", () =>
    Effect.gen(function* () {
      const bus = yield* busOn(yield* store.before(14, trimmedByAnOlderBuild), 100)
      // Which config events went with h1 is not known: conservatively, some after c1 may have.
      assert.instanceOf(yield* failureOf(bus.history({ category: "config", since: c1.id })), EventsTrimmed)
      // From the newest dropped, nothing of any category is missing.
      assert.deepStrictEqual(yield* bus.history({ category: "health", since: h1.id }), [])
      assert.deepStrictEqual(actions(yield* bus.history({ category: "config", since: h1.id })), ["c2"])
    }).pipe(Effect.scoped)
  )
})
