import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { AuthRequestEvents, EventNotFound, EventsTrimmed, LoginFailedEvent } from "@gatehouse-edge/contract/domain"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { TestClock } from "effect/testing"
import { v7 } from "uuid"
import type * as EventBus from "../../src/events/EventBus.js"
import { tempDir } from "../store/TempDir.js"
import { actions, busIn, collect, eventually, input, labelOf, openBus } from "./TestBus.js"

/** Publishes `e<from>` … `e<to - 1>` in one transaction (one commit: fast), returning them. */
const publishRange = (bus: EventBus.EventBus, from: number, to: number) =>
  Effect.gen(function* () {
    yield* bus.transaction(
      Effect.succeed({
        value: undefined,
        events: Array.from({ length: to - from }, (_, i) => input(`e${from + i}`))
      })
    )
    return (yield* bus.history({ limit: Number.POSITIVE_INFINITY })).filter((e) => {
      const n = Number(labelOf(e).slice(1))
      return labelOf(e).startsWith("e") && n >= from && n < to
    })
  })

/** The error `effect` fails with; when it succeeds instead, a test failure naming the events it gave. */
const failureOf = <E>(effect: Effect.Effect<ReadonlyArray<Event>, E>): Effect.Effect<E> =>
  Effect.flip(
    Effect.flatMap(effect, (events) =>
      Effect.die(new Error(`expected a failure, got ${events.length} events: ${actions(events).slice(0, 5)}…`))
    )
  )

const labels = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `e${from + i}`)

const failedSignIn = (i: number) =>
  LoginFailedEvent.make({ username: `guess${i}`, method: "session", address: "203.0.113.9", reason: "unknown user" })

describe("EventBus resume (since)", () => {
  it.effect("history pages forward from since: a client far behind catches up by reading on from the last id", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const seen = yield* publishRange(bus, 0, 5)
      yield* publishRange(bus, 5, 255)
      const pages: Array<ReadonlyArray<string>> = []
      let since = seen.at(-1)!.id
      for (;;) {
        const page = yield* bus.history({ since, limit: 100 })
        pages.push(actions(page))
        if (page.length < 100) break
        since = page.at(-1)!.id
      }
      // It gave the newest 100 after since (e155–e254): e5–e154 were lost, with no way to page to them.
      const span = (page: ReadonlyArray<string>) => `${page[0]}–${page.at(-1)} (${page.length})`
      assert.deepStrictEqual(pages.map(span), ["e5–e104 (100)", "e105–e204 (100)", "e205–e254 (50)"])
      assert.deepStrictEqual(pages.flat(), labels(5, 255))
    })
  )

  it.effect("a since the cap dropped fails history and follow with EventsTrimmed, naming the oldest kept", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 10 })
      const seen = yield* publishRange(bus, 0, 5)
      const last = seen.at(-1)!
      // The client is away while 30 more are published: the history keeps e25–e34.
      for (let i = 5; i < 35; i++) yield* bus.publish(input(`e${i}`))
      const kept = yield* bus.history({})
      assert.deepStrictEqual(actions(kept), labels(25, 35))

      const error = yield* failureOf(bus.history({ since: last.id }))
      assert.instanceOf(error, EventsTrimmed)
      assert.deepStrictEqual(
        { since: error.since, oldest_id: error.oldest_id },
        { since: last.id, oldest_id: kept[0]!.id }
      )
      assert.strictEqual(
        error.message,
        `events after ${last.id} were dropped from the history (its cap): follow again without since`
      )
      // It is a WebSocket close reason as well: RFC 6455 allows 123 bytes.
      assert.isAtMost(Buffer.byteLength(error.message), 123)

      // It delivered e25–e34 as if they followed e4.
      const followed = yield* failureOf(Stream.runCollect(bus.follow({ since: last.id }).pipe(Stream.take(10))))
      assert.instanceOf(followed, EventsTrimmed)
      assert.strictEqual(yield* bus.subscriberCount, 0)

      // The oldest kept still resumes.
      assert.deepStrictEqual(actions(yield* bus.history({ since: kept[0]!.id })), labels(26, 35))
    })
  )

  it.effect("a since never stored here fails with EventNotFound; the newest resumes with nothing missed", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir)
      const empty = yield* failureOf(bus.history({ since: v7({ msecs: 1_000, seq: 0 }) }))
      assert.instanceOf(empty, EventNotFound)
      const events = yield* publishRange(bus, 0, 5)
      // Newer than every event (another server's, or the store was reset since).
      const future = v7({ msecs: Date.UTC(2100, 0, 1), seq: 0 })
      const newer = yield* failureOf(bus.history({ since: future }))
      assert.instanceOf(newer, EventNotFound)
      assert.strictEqual(newer.message, `no event ${future} in the history: follow again without since`)
      // Between e2 and e3 (the counter sits before the random tail), never an event.
      const between = `${events[2]!.id.slice(0, -10)}ffffffffff`
      assert.isTrue(events[2]!.id < between && between < events[3]!.id)
      assert.instanceOf(yield* failureOf(bus.history({ since: between })), EventNotFound)
      const followed = yield* failureOf(Stream.runCollect(bus.follow({ since: between }).pipe(Stream.take(2))))
      assert.instanceOf(followed, EventNotFound)

      assert.deepStrictEqual(yield* bus.history({ since: events[4]!.id }), [])
      const follower = yield* collect(bus.follow({ since: events[4]!.id }).pipe(Stream.take(1)))
      yield* eventually(
        "the follower",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* bus.publish(input("live"))
      yield* Fiber.join(follower.fiber)
      assert.deepStrictEqual(actions(follower.received), ["live"])
    })
  )

  it.effect("with a cap of 0, a resume from the last event misses nothing; from an earlier one, EventsTrimmed", () =>
    Effect.gen(function* () {
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 0 })
      const a = yield* bus.publish(input("a"))
      const b = yield* bus.publish(input("b"))
      assert.deepStrictEqual(yield* bus.history({}), [])
      assert.deepStrictEqual(yield* bus.history({ since: b.id }), [])
      const trimmed = yield* failureOf(bus.history({ since: a.id }))
      assert.instanceOf(trimmed, EventsTrimmed)
      assert.isNull(trimmed.oldest_id)
      const follower = yield* collect(bus.follow({ since: b.id }).pipe(Stream.take(1)))
      yield* eventually(
        "the follower",
        Effect.map(bus.subscriberCount, (n) => n === 1)
      )
      yield* bus.publish(input("c"))
      yield* Fiber.join(follower.fiber)
      assert.deepStrictEqual(actions(follower.received), ["c"])
    })
  )

  it.effect("a since that was a failed sign-in dropped beyond its share fails with EventsTrimmed", () =>
    Effect.gen(function* () {
      // A cap of 20 keeps 2 failed sign-ins.
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 20 })
      const first = yield* bus.publish(input("first"))
      const failed = yield* Effect.forEach([0, 1, 2], (i) => bus.publish(failedSignIn(i)))
      yield* bus.publish(input("last"))
      assert.deepStrictEqual(
        (yield* bus.history({})).map((e) => e.id),
        [first.id, failed[1]!.id, failed[2]!.id, (yield* bus.history({ limit: 1 }))[0]!.id]
      )
      // Newer than the oldest event, but the sign-ins after it may be gone with it.
      const error = yield* failureOf(bus.history({ since: failed[0]!.id }))
      assert.instanceOf(error, EventsTrimmed)
      assert.strictEqual(error.oldest_id, first.id)
    })
  )

  it.effect("an id older than the first event the history ever held was never ours: EventNotFound, not trimmed", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      yield* TestClock.setTime(Date.UTC(2026, 0, 1))
      // Made up, well formed, and older than this store: before it existed, nothing was stored in it.
      const ancient = v7({ msecs: Date.UTC(2020, 0, 1), seq: 0 })
      const seen = yield* Effect.scoped(
        Effect.gen(function* () {
          const { bus } = yield* busIn(dir, { historyCap: 10 })
          const seen = yield* publishRange(bus, 0, 5)
          assert.instanceOf(yield* failureOf(bus.history({ since: ancient })), EventNotFound)
          // The cap drops e0–e24.
          yield* publishRange(bus, 5, 35)
          return seen
        })
      )
      // After a restart too: what the store ever held is kept with it.
      const { bus } = yield* busIn(dir, { historyCap: 10 })
      const error = yield* failureOf(bus.history({ since: ancient }))
      assert.instanceOf(error, EventNotFound)
      assert.instanceOf(yield* failureOf(Stream.runCollect(bus.follow({ since: ancient }))), EventNotFound)
      // Ids that were ours and were dropped are still told apart: the first event's, and a later one's.
      for (const dropped of [seen[0]!, seen[4]!]) {
        const trimmed = yield* failureOf(bus.history({ since: dropped.id }))
        assert.instanceOf(trimmed, EventsTrimmed)
        assert.strictEqual(trimmed.oldest_id, (yield* bus.history({ limit: 10 }))[0]!.id)
      }
    })
  )

  it.effect(
    "with a cap of 0, across a restart: the newest resumes, older ids of ours are trimmed, others not ours",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        yield* TestClock.setTime(Date.UTC(2026, 0, 1))
        const [a, b] = yield* Effect.scoped(
          Effect.gen(function* () {
            const { bus } = yield* busIn(dir, { historyCap: 0 })
            return [yield* bus.publish(input("a")), yield* bus.publish(input("b"))] as const
          })
        )
        // The clock is behind after the restart: new ids must still sort after those given out before.
        yield* TestClock.setTime(Date.UTC(2025, 0, 1))
        const { bus } = yield* busIn(dir, { historyCap: 0 })
        assert.deepStrictEqual(yield* bus.history({}), [])
        // The last event given out: nothing came after it, nothing was missed.
        assert.deepStrictEqual(yield* bus.history({ since: b.id }), [])
        // An earlier one of ours: events after it were not kept, and the client must hear it.
        const trimmed = yield* failureOf(bus.history({ since: a.id }))
        assert.instanceOf(trimmed, EventsTrimmed)
        assert.isNull(trimmed.oldest_id)
        // Older than the first event, or newer than the last: never ours.
        assert.instanceOf(
          yield* failureOf(bus.history({ since: v7({ msecs: Date.UTC(2020, 0, 1), seq: 0 }) })),
          EventNotFound
        )
        assert.instanceOf(
          yield* failureOf(bus.history({ since: v7({ msecs: Date.UTC(2100, 0, 1), seq: 0 }) })),
          EventNotFound
        )

        const follower = yield* collect(bus.follow({ since: b.id }).pipe(Stream.take(1)))
        yield* eventually(
          "the follower",
          Effect.map(bus.subscriberCount, (n) => n === 1)
        )
        const c = yield* bus.publish(input("c"))
        yield* Fiber.join(follower.fiber)
        assert.deepStrictEqual(actions(follower.received), ["c"])
        assert.isTrue(c.id > b.id, "an id after the restart sorts after those before it")
        // `b` is no longer the newest: a resume from it now misses `c`.
        assert.instanceOf(yield* failureOf(bus.history({ since: b.id })), EventsTrimmed)
        assert.deepStrictEqual(yield* bus.history({ since: c.id }), [])
      })
  )

  it.effect("failed sign-ins dropped beyond their share after a kept since are a gap: EventsTrimmed, not a hole", () =>
    Effect.gen(function* () {
      // A cap of 20 keeps 2 failed sign-ins.
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 20 })
      const first = yield* bus.publish(input("first"))
      // Within their share: a resume from `first` gets both.
      const failed = [yield* bus.publish(failedSignIn(0)), yield* bus.publish(failedSignIn(1))]
      assert.deepStrictEqual(
        (yield* bus.history({ since: first.id })).map((e) => e.id),
        failed.map((e) => e.id)
      )
      // A third pushes the first out; `first` is still kept, but a client resuming from it would miss one.
      failed.push(yield* bus.publish(failedSignIn(2)))
      const last = yield* bus.publish(input("last"))
      assert.deepStrictEqual(
        (yield* bus.history({})).map((e) => e.id),
        [first.id, failed[1]!.id, failed[2]!.id, last.id]
      )
      const error = yield* failureOf(bus.history({ since: first.id }))
      assert.instanceOf(error, EventsTrimmed)
      assert.deepStrictEqual(
        { since: error.since, oldest_id: error.oldest_id },
        { since: first.id, oldest_id: first.id }
      )
      assert.instanceOf(yield* failureOf(bus.history({ since: first.id, category: "auth" })), EventsTrimmed)
      const followed = yield* failureOf(Stream.runCollect(bus.follow({ since: first.id }).pipe(Stream.take(3))))
      assert.instanceOf(followed, EventsTrimmed)
      assert.strictEqual(yield* bus.subscriberCount, 0)
      // A reader of another category never follows failed sign-ins: nothing of its was dropped.
      assert.deepStrictEqual(actions(yield* bus.history({ since: first.id, category: "config" })), ["last"])
      // From after the dropped one, nothing is missing.
      assert.deepStrictEqual(
        (yield* bus.history({ since: failed[1]!.id })).map((e) => e.id),
        [failed[2]!.id, last.id]
      )
    })
  )

  it.effect("new auth requests dropped beyond their share are a gap to their followers, not to others", () =>
    Effect.gen(function* () {
      // A cap of 4 keeps 2 new or expired requests.
      const { bus } = yield* busIn(yield* tempDir, { historyCap: 4 })
      const first = yield* bus.publish(input("first"))
      const created = (i: number) =>
        bus.publish(AuthRequestEvents.created({ auth_id: `ghreq_${i}`, kind: "ssh_check" }))
      const requests = [yield* created(0), yield* created(1), yield* created(2)]
      const last = yield* bus.publish(input("last"))
      assert.deepStrictEqual(
        (yield* bus.history({})).map((e) => e.id),
        [first.id, requests[1]!.id, requests[2]!.id, last.id]
      )
      // `first` is kept, but a resume from it would miss the dropped request.
      assert.instanceOf(yield* failureOf(bus.history({ since: first.id })), EventsTrimmed)
      assert.instanceOf(yield* failureOf(bus.history({ since: first.id, category: "auth_request" })), EventsTrimmed)
      // The dropped request itself: ours, and gone.
      assert.instanceOf(yield* failureOf(bus.history({ since: requests[0]!.id })), EventsTrimmed)
      // Readers of other categories never follow them; after the dropped one nothing is missing.
      assert.deepStrictEqual(actions(yield* bus.history({ since: first.id, category: "config" })), ["last"])
      assert.deepStrictEqual(actions(yield* bus.history({ since: first.id, category: "auth" })), [])
      assert.deepStrictEqual(
        (yield* bus.history({ since: requests[1]!.id })).map((e) => e.id),
        [requests[2]!.id, last.id]
      )
    })
  )

  it.effect("a replay that the trimming overtakes fails with EventsTrimmed after what it read, skipping none", () =>
    Effect.gen(function* () {
      // Holds the replay's second page (after e500, the last of the first) until released.
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      let pages = 0
      const { bus } = yield* openBus(path.join(yield* tempDir, "gatehouse.db"), { historyCap: 1000 }, (repo) => ({
        ...repo,
        page: (since, category, count) =>
          Effect.andThen(
            ++pages === 2 ? Effect.andThen(Deferred.succeed(holding, undefined), Deferred.await(release)) : Effect.void,
            repo.page(since, category, count)
          )
      }))
      const [start] = yield* publishRange(bus, 0, 1)
      yield* publishRange(bus, 1, 601)
      // A large buffer: live events queued meanwhile must not drop it as too slow.
      const follower = yield* collect(
        bus.follow({ since: start!.id }, { bufferSize: 5000 }).pipe(Stream.takeUntil((e) => labelOf(e) === "done"))
      )
      yield* eventually("the replay to read its second page", Deferred.isDone(holding))
      // 1000 more: the history now starts after e500, where the replay goes on from.
      yield* publishRange(bus, 601, 1601)
      const oldest = (yield* bus.history({ limit: 1000 }))[0]!
      assert.isTrue(oldest.id > follower.received.at(-1)!.id, `the history starts at ${labelOf(oldest)}`)
      yield* Deferred.succeed(release, undefined)
      // Ends a follower that went on regardless.
      yield* bus.publish(input("done"))
      const error = yield* Effect.flip(
        Effect.andThen(
          Fiber.join(follower.fiber),
          Effect.suspend(() => Effect.die(new Error(`expected a failure, got ${follower.received.length} events`)))
        )
      )
      assert.instanceOf(error, EventsTrimmed)
      assert.strictEqual(error.since, follower.received.at(-1)!.id)
      assert.deepStrictEqual(actions(follower.received), labels(1, 501))
    })
  )
})
