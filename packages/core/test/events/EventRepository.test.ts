import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AuthRequestEvents, type Event, LoginFailedEvent } from "@gatehouse-edge/contract/domain"
import { Cause, Effect, Exit } from "effect"
import { v7 } from "uuid"
import { authRequestTrafficShare, failedSignInShare } from "../../src/events/EventRepository.js"
import { Database } from "../../src/store/SqliteDriver.js"
import { tempDir } from "../store/TempDir.js"
import { actions, input, repositoryAt } from "./TestBus.js"

const event = (n: number, category: "config" | "health"): Event =>
  ({
    ...input(`a${n}`, category),
    id: v7({ msecs: 1_000 + n, seq: 0 }),
    timestamp: new Date(1_000 + n).toISOString(),
    level: n % 2 === 0 ? "info" : "warn"
  }) as Event

// Failed sign-ins of `guess<i>`, after every event of `all` (made once: a v7 id has random bits).
const failedSignIns = Array.from({ length: 500 }, (_, i): Event => {
  const failed = LoginFailedEvent.make({
    username: `guess${i}`,
    method: "session",
    address: "203.0.113.9",
    reason: "unknown user"
  })
  return { ...failed, id: v7({ msecs: 5_000 + i, seq: 0 }), timestamp: new Date(5_000 + i).toISOString() } as Event
})
const failedSignIn = (i: number): Event => failedSignIns[i]!

// What the SSH gate's key makes: `ghreq_<i>` created, and (odd ones) another expired by the pending cap; after
// every failed sign-in.
const requestTraffic = Array.from({ length: 500 }, (_, i): Event => {
  const made =
    i % 2 === 0
      ? AuthRequestEvents.created({ auth_id: `ghreq_${i}`, kind: "ssh_check" })
      : AuthRequestEvents.expired({ auth_id: `ghreq_${i}`, kind: "ssh_check", reason: "pending_cap" })
  return { ...made, id: v7({ msecs: 10_000 + i, seq: 0 }), timestamp: new Date(10_000 + i).toISOString() } as Event
})
// An operator's verdict, made between the gate's requests.
const verdict = (i: number): Event =>
  ({
    ...AuthRequestEvents.approved({ auth_id: `ghreq_v${i}`, kind: "ssh_check", decided_by: "user:alice" }),
    id: v7({ msecs: 9_000 + i, seq: 0 }),
    timestamp: new Date(9_000 + i).toISOString()
  }) as Event

// 1..10, alternating categories: odd = config, even = health.
const all = Array.from({ length: 10 }, (_, i) => event(i + 1, (i + 1) % 2 === 1 ? "config" : "health"))
const byN = (...ns: ReadonlyArray<number>) => ns.map((n) => all[n - 1]!)

/** A store in a temp file holding `all`. */
const seeded = Effect.gen(function* () {
  const events = yield* repositoryAt(path.join(yield* tempDir, "gatehouse.db"))
  yield* Effect.forEach(all, (e) => events.append(e, 1_000))
  return events
})

describe("EventRepository (on the SQLite store)", () => {
  it.effect("lists everything oldest first", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      assert.deepStrictEqual(yield* events.list({}), all)
    })
  )

  it.effect("append trims to the newest `cap` events", () =>
    Effect.gen(function* () {
      const store = { events: yield* repositoryAt(path.join(yield* tempDir, "gatehouse.db")) }
      for (const e of all.slice(0, 5)) yield* store.events.append(e, 3)
      assert.deepStrictEqual(yield* store.events.list({}), byN(3, 4, 5))
      // A smaller cap later trims further; a larger one keeps what is there.
      yield* store.events.append(all[5]!, 2)
      assert.deepStrictEqual(yield* store.events.list({}), byN(5, 6))
      yield* store.events.append(all[6]!, 10)
      assert.deepStrictEqual(yield* store.events.list({}), byN(5, 6, 7))
      yield* store.events.append(all[7]!, Number.POSITIVE_INFINITY)
      assert.deepStrictEqual(yield* store.events.list({}), byN(5, 6, 7, 8))
    })
  )

  it.effect("with a large cap, trimming is batched: never fewer than `cap` kept, at most 1 % more", () =>
    Effect.gen(function* () {
      const store = yield* repositoryAt(path.join(yield* tempDir, "gatehouse.db"))
      const many = Array.from({ length: 260 }, (_, i) => ({ ...all[0]!, id: v7({ msecs: 10_000 + i, seq: 0 }) }))
      const sizes: Array<number> = []
      for (const e of many) {
        yield* store.append(e, 200)
        sizes.push((yield* store.list({})).length)
      }
      assert.isTrue(
        sizes.every((n, i) => n >= Math.min(i + 1, 200) && n <= Math.min(i + 1, 201)),
        `${sizes}`
      )
      assert.isTrue(
        sizes.slice(200).some((n) => n > 200),
        "trimming is batched"
      )
      const kept = yield* store.list({})
      assert.deepStrictEqual(kept.slice(-200), many.slice(-200))
    })
  )

  it.effect(
    "failed sign-ins, which anybody can make, keep to a tenth of the history: a flood pushes out no other",
    () =>
      Effect.gen(function* () {
        const store = yield* repositoryAt(path.join(yield* tempDir, "gatehouse.db"))
        const kept = all.slice(0, 6)
        for (const e of kept) yield* store.append(e, 100)
        for (let i = 0; i < 500; i++) yield* store.append(failedSignIn(i), 100)
        const history = yield* store.list({})
        assert.deepStrictEqual(
          history.filter((e) => e.category !== "auth"),
          kept
        )
        // The newest ten, in order.
        assert.deepStrictEqual(
          history.filter((e) => e.category === "auth").map((e) => (e.data as { username: string }).username),
          Array.from({ length: 10 }, (_, i) => `guess${490 + i}`)
        )
        assert.strictEqual(failedSignInShare(1), 1)
      })
  )

  it.effect(
    "new and expired auth requests, which the SSH gate's key can make, keep to half the history; verdicts are kept",
    () =>
      Effect.gen(function* () {
        const store = yield* repositoryAt(path.join(yield* tempDir, "gatehouse.db"))
        const kept = [...all.slice(0, 6), verdict(0), verdict(1)]
        for (const e of kept) yield* store.append(e, 100)
        for (const e of requestTraffic) yield* store.append(e, 100)
        const history = yield* store.list({})
        // Every other event and every verdict is still there: the flood pushed out only its own.
        assert.deepStrictEqual(
          history.filter((e) => e.category !== "auth_request" || e.action === "approved"),
          kept
        )
        // The newest fifty of the flood, in order.
        assert.deepStrictEqual(
          history.filter((e) => e.action === "created" || e.action === "expired"),
          requestTraffic.slice(-50)
        )
        assert.strictEqual(authRequestTrafficShare(100), 50)
        assert.strictEqual(authRequestTrafficShare(1), 1)
        assert.deepStrictEqual((yield* store.extent).requestTrimmedThrough, requestTraffic.at(-51)!.id)
      })
  )

  it.effect("both shares at once still leave the rest of the history to the other events", () =>
    Effect.gen(function* () {
      const store = yield* repositoryAt(path.join(yield* tempDir, "gatehouse.db"))
      const kept = all.slice(0, 6)
      for (const e of kept) yield* store.append(e, 20)
      for (let i = 0; i < 100; i++) yield* store.append(failedSignIn(i), 20)
      for (const e of requestTraffic.slice(0, 100)) yield* store.append(e, 20)
      const history = yield* store.list({})
      // 2 failed sign-ins and 10 requests of a cap of 20 leave 8 places: the 6 others all keep theirs.
      assert.deepStrictEqual(
        history.filter((e) => e.category !== "auth" && e.category !== "auth_request"),
        kept
      )
      assert.strictEqual(history.filter((e) => e.category === "auth").length, 2)
      assert.strictEqual(history.filter((e) => e.category === "auth_request").length, 10)
    })
  )

  it.effect("since is exclusive and need not be a stored id", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      assert.deepStrictEqual(yield* events.list({ since: all[6]!.id }), byN(8, 9, 10))
      assert.deepStrictEqual(yield* events.list({ since: all[9]!.id }), [])
      // An id between 3 and 4 (e.g. of an event trimmed since): everything after it.
      assert.deepStrictEqual(yield* events.list({ since: v7({ msecs: 1_003, seq: 5 }) }), byN(4, 5, 6, 7, 8, 9, 10))
      assert.deepStrictEqual(yield* events.list({ since: v7({ msecs: 0, seq: 0 }) }), all)
    })
  )

  it.effect("category filters, alone and with since and limit", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      assert.deepStrictEqual(yield* events.list({ category: "health" }), byN(2, 4, 6, 8, 10))
      assert.deepStrictEqual(yield* events.list({ category: "config", since: all[4]!.id }), byN(7, 9))
      assert.deepStrictEqual(yield* events.list({ category: "config", limit: 2 }), byN(7, 9))
      // With since, limit keeps the oldest after it (it kept the newest, 8 and 10, skipping 4 and 6).
      assert.deepStrictEqual(yield* events.list({ category: "health", since: all[2]!.id, limit: 2 }), byN(4, 6))
      assert.deepStrictEqual(yield* events.list({ category: "docker" }), [])
    })
  )

  it.effect("limit keeps the newest, returned oldest first", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      assert.deepStrictEqual(yield* events.list({ limit: 3 }), byN(8, 9, 10))
      assert.deepStrictEqual(yield* events.list({ limit: 1 }), byN(10))
      assert.deepStrictEqual(yield* events.list({ limit: 10 }), all)
      assert.deepStrictEqual(yield* events.list({ limit: 11 }), all)
    })
  )

  it.effect("with since, limit keeps the oldest after it: reading on from the last one skips none", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      // It kept the newest (8, 9, 10): a client that had seen 2 lost 3 to 7 and could not tell.
      assert.deepStrictEqual(yield* events.list({ since: all[1]!.id, limit: 3 }), byN(3, 4, 5))
      const pages: Array<ReadonlyArray<Event>> = []
      let since = all[0]!.id
      for (;;) {
        const page = yield* events.list({ since, limit: 4 })
        pages.push(page)
        if (page.length < 4) break
        since = page.at(-1)!.id
      }
      assert.deepStrictEqual(pages, [byN(2, 3, 4, 5), byN(6, 7, 8, 9), byN(10)])
      assert.deepStrictEqual(yield* events.list({ since: all[0]!.id, category: "config", limit: 2 }), byN(3, 5))
    })
  )

  it.effect("page reads since with the page, and says whether since is stored, whatever follows it", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      const kept = (page: ReadonlyArray<Event>) => ({ sinceKept: true, events: page })
      const missing = (page: ReadonlyArray<Event>) => ({ sinceKept: false, events: page })
      assert.deepStrictEqual(yield* events.page(all[2]!.id, undefined, 3), kept(byN(4, 5, 6)))
      assert.deepStrictEqual(yield* events.page(all[2]!.id, "health", 2), kept(byN(4, 6)))
      // A since of another category than the page's is still found.
      assert.deepStrictEqual(yield* events.page(all[1]!.id, "config", undefined), kept(byN(3, 5, 7, 9)))
      assert.deepStrictEqual(yield* events.page(all[9]!.id, undefined, 5), kept([]))
      // Count 0 reads no event but still checks since.
      assert.deepStrictEqual(yield* events.page(all[4]!.id, undefined, 0), kept([]))
      assert.deepStrictEqual(yield* events.page(v7({ msecs: 1_003, seq: 5 }), undefined, 0), missing([]))
      // Not stored: the events after it are there, but only the marks can say none before them is missing.
      assert.deepStrictEqual(yield* events.page(v7({ msecs: 1_003, seq: 5 }), undefined, 3), missing(byN(4, 5, 6)))
      assert.deepStrictEqual(yield* events.page(v7({ msecs: 0, seq: 0 }), "health", 3), missing(byN(2, 4, 6)))
    })
  )

  it.effect("extent: the kept ids, the first ever held, and the newest each trim dropped", () =>
    Effect.gen(function* () {
      const store = yield* repositoryAt(path.join(yield* tempDir, "gatehouse.db"))
      const none = {
        oldest: undefined,
        newest: undefined,
        first: undefined,
        trimmedThrough: undefined,
        failedTrimmedThrough: undefined,
        requestTrimmedThrough: undefined
      }
      assert.deepStrictEqual(yield* store.extent, none)
      for (const e of all.slice(0, 4)) yield* store.append(e, 100)
      // Nothing trimmed yet: the oldest kept is the first.
      assert.deepStrictEqual(yield* store.extent, {
        ...none,
        oldest: all[0]!.id,
        newest: all[3]!.id,
        first: all[0]!.id
      })
      for (let i = 0; i < 4; i++) yield* store.append(failedSignIn(i), 100)
      // A cap of 20 keeps 2 failed sign-ins: 0 to 2 go, and 2 is marked.
      yield* store.append(failedSignIn(4), 20)
      assert.deepStrictEqual(yield* store.extent, {
        ...none,
        oldest: all[0]!.id,
        newest: failedSignIn(4).id,
        first: all[0]!.id,
        failedTrimmedThrough: failedSignIn(2).id
      })
      // A cap of 2 (1 failed sign-in): the events up to the third newest go too, and the first is remembered.
      yield* store.append(failedSignIn(5), 2)
      assert.deepStrictEqual(actions(yield* store.list({})), ["a4", "auth/login_failed"])
      assert.deepStrictEqual(yield* store.extent, {
        oldest: all[3]!.id,
        newest: failedSignIn(5).id,
        first: all[0]!.id,
        trimmedThrough: all[2]!.id,
        failedTrimmedThrough: failedSignIn(4).id,
        requestTrimmedThrough: undefined
      })
      // A cap of 0 keeps nothing; the marks say what there was.
      yield* store.append(failedSignIn(6), 0)
      assert.deepStrictEqual(yield* store.extent, {
        ...none,
        first: all[0]!.id,
        trimmedThrough: failedSignIn(6).id,
        failedTrimmedThrough: failedSignIn(5).id
      })
    })
  )

  it.effect("a store from before the marks: its oldest kept event counts as its first, and nothing as dropped", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      yield* Effect.scoped(
        Effect.flatMap(repositoryAt(filename), (store) => Effect.forEach(all, (e) => store.append(e, 5)))
      )
      // As a build without them left it: the table, the later migrations' indexes and columns and their records gone
      // (the migrator runs only migrations newer than the newest recorded).
      const db = new Database(filename)
      db.exec(
        "DROP TABLE event_marks; DROP TABLE event_category_marks; DROP INDEX auth_requests_pending_order; DROP INDEX auth_requests_pending_expiry; " +
          "DROP INDEX auth_requests_expired; " +
          "ALTER TABLE sessions DROP COLUMN password_fingerprint; ALTER TABLE sessions DROP COLUMN oidc_claims; " +
          "DELETE FROM effect_sql_migrations WHERE migration_id >= 8"
      )
      db.close()
      const store = yield* repositoryAt(filename)
      assert.deepStrictEqual(yield* store.extent, {
        oldest: all[5]!.id,
        newest: all[9]!.id,
        first: all[5]!.id,
        trimmedThrough: undefined,
        failedTrimmedThrough: undefined,
        requestTrimmedThrough: undefined
      })
    })
  )

  it.effect("limit edge values: 0, negative and NaN give nothing; fractions round down; Infinity is no limit", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      assert.deepStrictEqual(yield* events.list({ limit: 0 }), [])
      assert.deepStrictEqual(yield* events.list({ limit: -1 }), [])
      assert.deepStrictEqual(yield* events.list({ limit: Number.NaN }), [])
      assert.deepStrictEqual(yield* events.list({ limit: 2.9 }), byN(9, 10))
      assert.deepStrictEqual(yield* events.list({ limit: Number.POSITIVE_INFINITY }), all)
      assert.deepStrictEqual(yield* events.list({ limit: Number.MAX_VALUE }), all)
      assert.deepStrictEqual(yield* events.list({ limit: undefined, since: undefined, category: undefined }), all)
    })
  )

  it.effect("a storage failure is a defect", () =>
    Effect.gen(function* () {
      const events = yield* seeded
      // Same id twice violates the primary key.
      const exit = yield* Effect.exit(events.append(all[0]!, 1_000))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
    })
  )
})
