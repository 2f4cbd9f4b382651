import { assert, describe, it } from "@effect/vitest"
import type { AuthRequestKind, NewAuthRequest } from "@gatehouse-edge/contract/domain"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { create, decide } from "../../src/authrequests/AuthRequestChanges.js"
import { AuthRequestRepository } from "../../src/authrequests/AuthRequestRepository.js"
import type { Batch } from "../../src/authrequests/AuthRequestWriter.js"
import { AuthRequests, Events, StoreLive } from "../../src/index.js"
import { storesUnderTest } from "../store/StoresUnderTest.js"
import { authRequestsOn, operator } from "./AuthRequestsTestLayer.js"

// The pending cap holds per kind: the SSH check gate's key (which may create only ssh_check requests) must not
// expire the registrations waiting for an operator, nor a flood of registrations the logins waiting at the gate.
// On SQLite and, with GATEHOUSE_TEST_PG_URL (skipped without it, except under GATEHOUSE_E2E=1), on PostgreSQL.
const stores = storesUnderTest

const maxPending = 3
const other = { registration: "ssh_check", ssh_check: "registration" } as const
let machines = 0
const newRequest = (kind: AuthRequestKind): NewAuthRequest =>
  kind === "ssh_check"
    ? { kind, ssh_check: { src: "10.0.0.1", dst: "db1", local_user: "root" } }
    : { kind, registration: { machine_key: `mkey-${++machines}`, node_key: "nk", hostname: "laptop" } }

/** The ids of the pending requests of `kind`, oldest first. */
const pendingOf = (kind: AuthRequestKind) =>
  Effect.gen(function* () {
    const found = yield* (yield* AuthRequests).list({ state: "pending", kind })
    return found.map((r) => r.auth_id).reverse()
  })

/** The data of the `expired` events, in the order recorded. */
const expiredEvents = Effect.gen(function* () {
  const history = yield* (yield* Events).history({ category: "auth_request" })
  return history.filter((e) => e.action === "expired").map((e) => e.data)
})

/** The data of the `expired` events that record these requests pushed out by the cap. */
const pushedOut = (kind: AuthRequestKind, ids: ReadonlyArray<string>) =>
  ids.map((auth_id) => ({ auth_id, kind, reason: "pending_cap" }))

for (const store of stores) {
  const run = (name: string, body: Effect.Effect<void, unknown, AuthRequests | Events>) =>
    it.effect(name, () =>
      Effect.gen(function* () {
        yield* body.pipe(Effect.provide(authRequestsOn(yield* store.open, { maxPending })))
      }).pipe(Effect.scoped)
    )

  describe.skipIf(store.skip)(`the pending cap holds per kind (${store.name})`, () => {
    for (const flooding of ["ssh_check", "registration"] as const) {
      run(
        `a flood of ${flooding} requests expires only the oldest ${flooding} ones, never a pending ${other[flooding]}`,
        Effect.gen(function* () {
          const service = yield* AuthRequests
          const created = (kind: AuthRequestKind) =>
            Effect.tap(service.create(newRequest(kind), operator), () => TestClock.adjust("1 second"))
          const waiting = [(yield* created(other[flooding])).auth_id, (yield* created(other[flooding])).auth_id]
          const flood: Array<string> = []
          for (let i = 0; i < 10; i++) flood.push((yield* created(flooding)).auth_id)

          assert.deepStrictEqual(yield* pendingOf(other[flooding]), waiting, "the other kind is untouched")
          assert.deepStrictEqual(yield* pendingOf(flooding), flood.slice(-maxPending), "the newest of the flood")
          assert.deepStrictEqual(yield* expiredEvents, pushedOut(flooding, flood.slice(0, -maxPending)))
        })
      )
    }

    run(
      "each kind holds max_pending pending requests of its own; each push-out names the oldest of its kind",
      Effect.gen(function* () {
        const service = yield* AuthRequests
        const made: Record<AuthRequestKind, Array<string>> = { registration: [], ssh_check: [] }
        const expected: Array<ReturnType<typeof pushedOut>[number]> = []
        for (let i = 0; i < 7; i++) {
          for (const kind of ["registration", "ssh_check"] as const) {
            made[kind].push((yield* service.create(newRequest(kind), operator)).auth_id)
            // Past the cap, each create pushes out exactly the oldest pending request of its own kind.
            if (made[kind].length > maxPending) expected.push(...pushedOut(kind, [made[kind].at(-maxPending - 1)!]))
            yield* TestClock.adjust("1 second")
          }
        }
        assert.deepStrictEqual(yield* pendingOf("registration"), made.registration.slice(-maxPending))
        assert.deepStrictEqual(yield* pendingOf("ssh_check"), made.ssh_check.slice(-maxPending))
        assert.deepStrictEqual(yield* expiredEvents, expected)
      })
    )

    run(
      "creates and verdicts of both kinds in one group commit count each kind exactly",
      Effect.gen(function* () {
        const service = yield* AuthRequests
        const ids = new Map<string, string>()
        const make = (name: string) =>
          Effect.map(service.create(newRequest(name.startsWith("s") ? "ssh_check" : "registration"), operator), (r) => {
            ids.set(name, r.auth_id)
          })
        for (const name of ["s1", "s2", "s3", "r1", "r2"]) {
          yield* make(name)
          yield* TestClock.adjust("1 second")
        }
        // Submitted together, so the writer takes them as one batch: its cached counts must follow every step.
        // A create counted against the other kind would push out r1 at r3; a verdict not taken off its kind's
        // count would push out s3 at s5.
        yield* Effect.all(
          [
            make("s4"), // ssh_check: 3 pending → s1 out
            make("r3"), // registration: 2 → 3
            service.approve(ids.get("s2")!, "api-key:admin"), // ssh_check: 2
            make("s5"), // 3
            make("r4"), // registration: 3 → r1 out
            service.reject(ids.get("r2")!, "api-key:admin"), // registration: 2
            make("s6"), // ssh_check: 3 → s3 out
            make("r5") // registration: 3
          ],
          { concurrency: "unbounded", discard: true }
        )
        const named = (names: ReadonlyArray<string>) => names.map((name) => ids.get(name)!)
        assert.sameMembers(yield* pendingOf("ssh_check"), named(["s4", "s5", "s6"]))
        assert.sameMembers(yield* pendingOf("registration"), named(["r3", "r4", "r5"]))
        assert.sameDeepMembers(yield* expiredEvents, [
          ...pushedOut("ssh_check", named(["s1", "s3"])),
          ...pushedOut("registration", named(["r1"]))
        ])
        // One more of each, one at a time: the counts the batch left are the store's.
        yield* TestClock.adjust("1 second")
        yield* make("s7")
        yield* make("r6")
        assert.strictEqual((yield* pendingOf("ssh_check")).length, maxPending)
        assert.strictEqual((yield* pendingOf("registration")).length, maxPending)
      })
    )

    const onRepository = (name: string, body: Effect.Effect<void, unknown, AuthRequestRepository>) =>
      it.effect(name, () =>
        Effect.gen(function* () {
          yield* body.pipe(Effect.provide(AuthRequestRepository.layer.pipe(Layer.provideMerge(yield* store.open))))
        }).pipe(Effect.scoped)
      )

    onRepository(
      "a batch's cached count of each kind is the store's after every create, verdict and push-out",
      Effect.gen(function* () {
        const repository = yield* AuthRequestRepository
        const config = { ttlMs: 60_000, maxPending }
        const kindOf = (name: string): AuthRequestKind => (name.startsWith("s") ? "ssh_check" : "registration")
        const add = (batch: Batch, name: string) => create(repository, config, name, newRequest(kindOf(name)))(batch)
        for (const [i, name] of ["s1", "s2", "s3", "r1", "r2"].entries()) {
          yield* add({ now: 1_000 * (i + 1), pending: new Map() }, name)
        }
        const batch: Batch = { now: 10_000, pending: new Map() }
        const out: Array<string> = []
        const steps = [
          () => add(batch, "s4"),
          () => add(batch, "r3"),
          () => decide(repository, "s2", "approved", "api-key:admin")(batch),
          () => add(batch, "s5"),
          () => add(batch, "r4"),
          () => decide(repository, "r2", "rejected", "api-key:admin")(batch),
          () => add(batch, "s6"),
          () => add(batch, "r5")
        ]
        for (const [i, step] of steps.entries()) {
          const outcome = yield* step()
          out.push(...outcome.changed.filter((r) => r.state === "expired").map((r) => r.auth_id))
          for (const [kind, counted] of batch.pending) {
            assert.strictEqual(counted, yield* repository.countPending(kind, batch.now), `${kind} after step ${i + 1}`)
            assert.isAtMost(counted, maxPending)
          }
        }
        assert.deepStrictEqual(out, ["s1", "r1", "s3"])
        assert.strictEqual(yield* repository.countPending("ssh_check", batch.now), maxPending)
        assert.strictEqual(yield* repository.countPending("registration", batch.now), maxPending)
      })
    )

    onRepository(
      "a request whose time ran out is left to the sweeper (reason ttl): the cap pushes out the oldest unexpired one",
      Effect.gen(function* () {
        const repository = yield* AuthRequestRepository
        const add = (now: number, ttlMs: number, name: string) =>
          create(repository, { ttlMs, maxPending }, name, newRequest("ssh_check"))({ now, pending: new Map() })
        yield* add(1_000, 1_000, "s1") // timed out at 2,000, not yet swept
        for (const [i, name] of ["s2", "s3", "s4"].entries()) yield* add(3_000 + i, 60_000, name)
        const outcome = yield* add(10_000, 60_000, "s5")
        const expired = outcome.changed.filter((r) => r.state === "expired").map((r) => r.auth_id)
        assert.deepStrictEqual(expired, ["s2"])
        assert.strictEqual(yield* repository.countPending("ssh_check", 10_000), maxPending)
      })
    )
  })
}

describe("the pending cap's queries (SQLite)", () => {
  it.effect("read one kind's pending requests from the partial indexes, not every pending request", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const planOf = (query: string) =>
        Effect.map(sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`), (rows) =>
          rows.map((row) => row.detail).join("; ")
        )
      // The statements of AuthRequestRepository.countPending and expireOldest.
      const count = yield* planOf(
        "SELECT count(*) AS n FROM auth_requests WHERE state = 'pending' AND kind = 'ssh_check' AND expires_at > 5"
      )
      const oldest = yield* planOf(
        "SELECT auth_id FROM auth_requests WHERE state = 'pending' AND kind = 'ssh_check' AND expires_at > 5 " +
          "ORDER BY created_at, auth_id LIMIT 2"
      )
      assert.include(count, "USING COVERING INDEX auth_requests_pending_expiry")
      assert.include(oldest, "USING COVERING INDEX auth_requests_pending_order")
      assert.notInclude(oldest, "TEMP B-TREE", "read in order, not sorted")
    }).pipe(Effect.provide(StoreLive.layerMemory))
  )
})
