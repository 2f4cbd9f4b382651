import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Stream } from "effect"
import type { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { requireEnv } from "../../../../test/support/e2e.js"
import { AuthRequests, Events, StoreLive } from "../../src/index.js"
import * as PostgresStore from "../../src/store/PostgresStore.js"
import { freshPostgresSchema } from "../store/FreshPostgresSchema.js"
import { tempDir } from "../store/TempDir.js"
import { authRequestsOn, operator } from "./AuthRequestsTestLayer.js"

const sshCheck = { kind: "ssh_check", ssh_check: { src: "127.0.0.1", dst: "db1", local_user: "root" } } as const

/**
 * Runs the service on a store, stops it, and starts it again on the same store: everything decided, pending or
 * registered before is there after, requests whose time ran out while it was down are expired at start, and a
 * watcher that reconnects gets the stored verdict. Returns what a caller sees, for comparison across stores.
 */
const restartScenario = (
  store: Layer.Layer<SqlClient.SqlClient, unknown>,
  ttlMs: number,
  downtime: Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const first = yield* Effect.scoped(
      Effect.gen(function* () {
        const service = yield* AuthRequests
        yield* service.createUser({ name: "alice", display_name: "Alice" })
        const approved = yield* service.create(sshCheck, operator)
        yield* service.approve(approved.auth_id, "api-key:admin")
        const pending = yield* service.create(sshCheck, operator)
        const registration = yield* service.create(
          {
            kind: "registration",
            registration: { machine_key: "m1", node_key: "n1", hostname: "host-1" }
          },
          operator
        )
        const node = yield* service.register(registration.auth_id, "alice", "user:bob")
        return { approved: approved.auth_id, pending: pending.auth_id, registration: registration.auth_id, node }
      }).pipe(Effect.provide(Layer.fresh(authRequestsOn(store, { ttlMs }))))
    )
    // Down for longer than the TTL: the pending request must come back expired, not pending.
    yield* downtime
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const service = yield* AuthRequests
        const approved = yield* service.watch(first.approved).pipe(Stream.runCollect)
        const expired = yield* service.watch(first.pending).pipe(Stream.runCollect)
        const registered = yield* service.get(first.registration)
        const history = yield* (yield* Events).history({ category: "auth_request" })
        return {
          approved: approved.map((r) => [r.state, r.decided_by]),
          expired: expired.map((r) => r.state),
          registered: [registered.state, registered.decided_by, registered.user?.name, registered.node?.id],
          sameNode: JSON.stringify(registered.node) === JSON.stringify(first.node),
          users: (yield* service.listUsers).map((u) => [u.id, u.name, u.display_name]),
          nodes: (yield* service.listNodes()).map((n) => [n.id, n.given_name, n.ip_addresses]),
          history: history.map((e) => e.action)
        }
      }).pipe(Effect.provide(Layer.fresh(authRequestsOn(store, { ttlMs }))))
    )
  })

const expected: unknown = {
  approved: [["approved", "api-key:admin"]],
  expired: ["expired"],
  registered: ["registered", "user:bob", "alice", 1],
  sameNode: true,
  users: [[1, "alice", "Alice"]],
  nodes: [[1, "host-1", ["100.64.0.1", "fd7a:115c:a1e0::1"]]],
  history: ["created", "approved", "created", "created", "registered", "expired"]
}

describe("AuthRequests across a restart", () => {
  it.effect("on a SQLite file", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const store = StoreLive.layer({ filename })
      assert.deepStrictEqual(yield* restartScenario(store, 60_000, TestClock.adjust("2 minutes")), expected)
    }).pipe(Effect.scoped)
  )

  const pg = requireEnv("GATEHOUSE_TEST_PG_URL")
  // On the live clock: @effect/sql-pg's pool does not make progress under TestClock. The downtime is a real
  // wait past a short TTL, because time passing while the server is down is what this test is about.
  it.live.skipIf(pg.skip)("on PostgreSQL, with the same answers", () =>
    Effect.gen(function* () {
      const url = Redacted.make(pg.skip ? "" : pg.value)
      const { schema } = yield* freshPostgresSchema(pg.skip ? "" : pg.value)
      const store = PostgresStore.layer({ url, schema })
      assert.deepStrictEqual(yield* restartScenario(store, 1_500, Effect.sleep("1600 millis")), expected)
    }).pipe(Effect.scoped)
  )
})

describe("AuthRequests on PostgreSQL", () => {
  const pg = requireEnv("GATEHOUSE_TEST_PG_URL")
  // The group commit on PostgreSQL: its transactions take a pooled connection, where SQLite's hold its only one.
  it.live.skipIf(pg.skip)(
    "concurrent creates and opposite verdicts: exactly one verdict wins each, history in order",
    () =>
      Effect.gen(function* () {
        const url = Redacted.make(pg.skip ? "" : pg.value)
        const { schema } = yield* freshPostgresSchema(pg.skip ? "" : pg.value)
        yield* Effect.gen(function* () {
          const service = yield* AuthRequests
          const created = yield* Effect.forEach(Array.from({ length: 60 }), () => service.create(sshCheck, operator), {
            concurrency: "unbounded"
          })
          // Each request gets an approval and a rejection at once: exactly one of the two wins.
          const outcomes = yield* Effect.forEach(
            created,
            (request) =>
              Effect.all(
                [Effect.exit(service.approve(request.auth_id, "a")), Effect.exit(service.reject(request.auth_id, "b"))],
                { concurrency: "unbounded" }
              ),
            { concurrency: "unbounded" }
          )
          for (const pair of outcomes) assert.strictEqual(pair.filter(Exit.isSuccess).length, 1)
          const history = yield* (yield* Events).history({ category: "auth_request" })
          for (const request of created) {
            const actions = history.filter((e) => (e.data as { auth_id: string }).auth_id === request.auth_id)
            assert.strictEqual(actions.length, 2)
            assert.strictEqual(actions[0]!.action, "created")
            assert.strictEqual(actions[1]!.action, (yield* service.get(request.auth_id)).state)
          }
          for (let i = 1; i < history.length; i++) assert.isTrue(history[i - 1]!.id < history[i]!.id)
        }).pipe(Effect.provide(Layer.fresh(authRequestsOn(PostgresStore.layer({ url, schema })))))
      }).pipe(Effect.scoped)
  )
})
