import { assert, describe, it } from "@effect/vitest"
import {
  AuthRequestNotFound,
  LoginEvent,
  type NewAuthRequest,
  type Principal,
  RateLimited
} from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { AuthRequestRepository, type RequestRecord } from "../../src/authrequests/AuthRequestRepository.js"
import { AuthRequests, Events } from "../../src/index.js"
import { storesUnderTest } from "../store/StoresUnderTest.js"
import { authRequestsOn, gateKey, operator } from "./AuthRequestsTestLayer.js"

// What a stolen SSH gate key (`auth_requests:create`: it decides nothing) can do to the server, and what holds it:
// its events keep to a share of the history, the requests that end without a verdict go after an hour and beyond a
// count, and its creates have an allowance. On SQLite and, with GATEHOUSE_TEST_PG_URL, on PostgreSQL.

let logins = 0
const sshCheck = (): NewAuthRequest => ({
  kind: "ssh_check",
  ssh_check: { src: "10.0.0.7", dst: `db${++logins}`, local_user: "root" }
})

/** Polls `condition` (yielding to the sweeper in between) until it holds: no sleeps, and it gives up soon. */
const eventually = <E>(what: string, condition: Effect.Effect<boolean, E, AuthRequests>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1_000; i++) {
      if (yield* condition) return
      yield* Effect.yieldNow
    }
    return yield* Effect.die(new Error(`gave up waiting for ${what}`))
  })

/** The ids of the requests in `state`, oldest first. */
const idsIn = (state: "expired" | "approved" | "pending") =>
  Effect.map(
    Effect.flatMap(AuthRequests, (service) => service.list({ state })),
    (found) => found.map((r) => r.auth_id).reverse()
  )

for (const store of storesUnderTest) {
  /** Runs a test on the service over a fresh store of this kind. */
  const on =
    (config: Parameters<typeof authRequestsOn>[1] = {}, options: Parameters<typeof authRequestsOn>[2] = {}) =>
    <A, E>(body: Effect.Effect<A, E, AuthRequests | Events>) =>
      Effect.scoped(
        Effect.flatMap(store.open, (opened) => Effect.provide(body, authRequestsOn(opened, config, options)))
      )

  describe.skipIf(store.skip)(`a flood of requests from the SSH gate's key (${store.name})`, () => {
    it.effect(
      "2,000 requests leave a sign-in in the history of 1,000: new and expired requests keep to half of it",
      () =>
        Effect.gen(function* () {
          const service = yield* AuthRequests
          const events = yield* Events
          const login = yield* events.publish(
            LoginEvent.make({ subject: "user:alice", method: "session", address: "192.0.2.1" })
          )
          // Twenty gate keys, each within its allowance (100 at once): past the pending cap of 1,024 each request
          // also expires one.
          const gates = Array.from({ length: 20 }, (_, i): Principal => ({ ...gateKey, subject: `api-key:gate-${i}` }))
          for (let i = 0; i < 2000; i++) yield* service.create(sshCheck(), gates[i % 20]!)
          const history = yield* events.history({ limit: 1000 })
          assert.isTrue(
            history.some((e) => e.id === login.id),
            "the sign-in is still in the history"
          )
          const traffic = history.filter((e) => e.category === "auth_request")
          // Half of 1,000, and up to 1 % more between the batched trims.
          assert.isAtMost(traffic.length, 510)
          assert.isTrue(traffic.some((e) => e.action === "expired"))
        }).pipe(on({}, { historyCap: 1000 })),
      120_000
    )

    it.effect("requests that ended without a verdict are kept at most 5 here, the oldest deleted first", () =>
      Effect.gen(function* () {
        const service = yield* AuthRequests
        const approved = yield* service.create(sshCheck(), operator)
        yield* service.approve(approved.auth_id, "user:alice")
        const made: Array<string> = []
        for (let i = 0; i < 20; i++) {
          made.push((yield* service.create(sshCheck(), gateKey)).auth_id)
          yield* TestClock.adjust("1 millis")
        }
        // A pending cap of 2: the first 18 were pushed out; of those, the newest 5 are kept.
        yield* eventually(
          "the oldest undecided requests deleted",
          Effect.map(idsIn("expired"), (ids) => ids.length === 5)
        )
        assert.deepStrictEqual(yield* idsIn("expired"), made.slice(13, 18))
        assert.instanceOf(yield* Effect.flip(service.get(made[0]!)), AuthRequestNotFound)
        assert.deepStrictEqual(yield* idsIn("approved"), [approved.auth_id])
      }).pipe(on({ maxPending: 2, expiredMax: 5 }))
    )

    it.effect("the store deletes requests that expired before a time, and the oldest beyond a count", () =>
      Effect.gen(function* () {
        const repository = yield* AuthRequestRepository
        const at = (n: number, state: "expired" | "approved"): RequestRecord => ({
          auth_id: `ghreq_${String(n).padStart(24, "0")}`,
          kind: "ssh_check",
          state,
          created_at: n,
          expires_at: n + 900_000,
          decided_at: n + 10,
          decided_by: state === "approved" ? "user:alice" : null,
          user_id: null,
          node_id: null,
          machine_key: null,
          node_key: null,
          hostname: null,
          src: "10.0.0.7",
          dst: "db1",
          local_user: "root"
        })
        for (let n = 1; n <= 6; n++) yield* repository.insertRequest(at(n, "expired"))
        yield* repository.insertRequest(at(0, "approved"))
        assert.deepStrictEqual(yield* repository.oldestExpired, Option.some(11))
        // Before 13: those that expired at 11 and 12; never a verdict, however old.
        assert.strictEqual(yield* repository.deleteExpiredBefore(13), 2)
        assert.strictEqual(yield* repository.deleteExpiredBeyond(2), 2)
        const left = yield* repository.listRequests({ limit: 10 })
        assert.deepStrictEqual(
          left.map((r) => r.created_at),
          [6, 5, 0]
        )
        assert.strictEqual(yield* repository.deleteExpiredBeyond(2), 0)
      }).pipe((body) =>
        Effect.scoped(
          Effect.flatMap(store.open, (opened) =>
            Effect.provide(body, AuthRequestRepository.layer.pipe(Layer.provide(opened)))
          )
        )
      )
    )

    // Declared on SQLite only (not skipped on PostgreSQL): @effect/sql-pg's pool does not make progress under a
    // TestClock moved by hours (the test above covers the store's side on PostgreSQL).
    if (store.name === "SQLite") {
      it.effect("an hour after they expired, requests without a verdict are deleted; verdicts stay", () =>
        Effect.gen(function* () {
          const service = yield* AuthRequests
          const approved = yield* service.create(sshCheck(), operator)
          yield* service.approve(approved.auth_id, "user:alice")
          const made: Array<string> = []
          for (let i = 0; i < 4; i++) {
            made.push((yield* service.create(sshCheck(), gateKey)).auth_id)
            yield* TestClock.adjust("1 millis")
          }
          assert.deepStrictEqual(yield* idsIn("expired"), made.slice(0, 2))
          // An hour after they were pushed out, they are gone; the two left pending expire (TTL) at 15 min.
          yield* TestClock.adjust("1 hour")
          yield* TestClock.adjust("1 millis")
          yield* eventually(
            "the pushed-out requests deleted after an hour",
            Effect.map(idsIn("expired"), (ids) => ids.join() === made.slice(2).join())
          )
          yield* TestClock.adjust("15 minutes")
          yield* eventually(
            "the requests expired by their TTL deleted an hour later",
            Effect.map(idsIn("expired"), (ids) => ids.length === 0)
          )
          // The verdict is kept for `auth_requests.retention` (30 days).
          assert.deepStrictEqual(yield* idsIn("approved"), [approved.auth_id])
        }).pipe(on({ maxPending: 2 }))
      )
    }

    it.effect(
      "a create-only key creates 100 at once, then 20 a second (RateLimited past that); others are not held",
      () =>
        Effect.gen(function* () {
          const service = yield* AuthRequests
          for (let i = 0; i < 100; i++) yield* service.create(sshCheck(), gateKey)
          const refused = yield* Effect.flip(service.create(sshCheck(), gateKey))
          assert.instanceOf(refused, RateLimited)
          assert.strictEqual(refused.retry_after_s, 1)
          assert.include(refused.message, "api-key:ssh-gate")
          // Another gate's key has its own allowance; an operator's key none at all.
          const otherGate: Principal = { ...gateKey, subject: "api-key:ssh-gate-2" }
          yield* service.create(sshCheck(), otherGate)
          for (let i = 0; i < 150; i++) yield* service.create(sshCheck(), operator)
          // One comes back every 50 ms, and the burst after 5 s.
          yield* TestClock.adjust("50 millis")
          yield* service.create(sshCheck(), gateKey)
          assert.instanceOf(yield* Effect.flip(service.create(sshCheck(), gateKey)), RateLimited)
          yield* TestClock.adjust("5 seconds")
          for (let i = 0; i < 100; i++) yield* service.create(sshCheck(), gateKey)
          assert.instanceOf(yield* Effect.flip(service.create(sshCheck(), gateKey)), RateLimited)
        }).pipe(on())
    )

    it.effect("auth_requests.create_rate and create_burst set the allowance", () =>
      Effect.gen(function* () {
        const service = yield* AuthRequests
        for (let i = 0; i < 3; i++) yield* service.create(sshCheck(), gateKey)
        const refused = yield* Effect.flip(service.create(sshCheck(), gateKey))
        assert.instanceOf(refused, RateLimited)
        assert.strictEqual(refused.retry_after_s, 2)
        assert.include(refused.message, "at most 0.5 a second (3 at once)")
        yield* TestClock.adjust("2 seconds")
        yield* service.create(sshCheck(), gateKey)
        assert.instanceOf(yield* Effect.flip(service.create(sshCheck(), gateKey)), RateLimited)
      }).pipe(on({ createPerSecond: 0.5, createBurst: 3 }))
    )
  })
}
