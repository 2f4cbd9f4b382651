import { assert, describe, it } from "@effect/vitest"
import { type Cause, Context, Effect, Layer, Queue, Redacted, Stream } from "effect"
import { requireEnv } from "../../../../test/support/e2e.js"
import { AuthRequests, UserAlreadyExists } from "../../src/index.js"
import * as PostgresStore from "../../src/store/PostgresStore.js"
import { freshPostgresSchema } from "../store/FreshPostgresSchema.js"
import { authRequestsOn, operator } from "./AuthRequestsTestLayer.js"

// Two servers on one PostgreSQL store, each with its own connection pool and event bus: only the database
// serialises what they do. GATEHOUSE_TEST_PG_URL as in the store's PostgreSQL tests (skipped without it, except
// under GATEHOUSE_E2E=1, where that fails).
const pg = requireEnv("GATEHOUSE_TEST_PG_URL")
const url = pg.skip ? "" : pg.value

const replica = (schema: string) =>
  Effect.map(
    Layer.build(authRequestsOn(PostgresStore.layer({ url: Redacted.make(url), schema }))),
    Context.get(AuthRequests)
  )

const registration = (machine: string) =>
  ({ kind: "registration", registration: { machine_key: machine, node_key: `nk-${machine}`, hostname: "h" } }) as const

describe.skipIf(pg.skip)("auth requests on a PostgreSQL store shared by two servers", () => {
  it.live("users and nodes created at once on both get distinct ids and addresses; a name taken twice is a 409", () =>
    Effect.gen(function* () {
      const { schema } = yield* freshPostgresSchema(url)
      const a = yield* replica(schema)
      const b = yield* replica(schema)
      const servers = [a, b]

      const users = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => servers[i % 2]!.createUser({ name: `user${i}` }),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(users.map((user) => user.id)).size, 20)

      // The same name on both servers at once: one creates it, the other is told it exists (never a defect).
      const twice = yield* Effect.forEach(
        Array.from({ length: 10 }, (_, i) => i),
        (i) =>
          Effect.all(
            servers.map((server) => Effect.result(server.createUser({ name: `same${i}` }))),
            { concurrency: "unbounded" }
          ),
        { concurrency: "unbounded" }
      )
      for (const [first, second] of twice) {
        const failures = [first!, second!].filter((result) => result._tag === "Failure")
        assert.strictEqual(failures.length, 1)
        assert.instanceOf(failures[0]!.failure, UserAlreadyExists)
      }

      const requests = yield* Effect.forEach(
        Array.from({ length: 12 }, (_, i) => i),
        (i) => a.create(registration(`m${i}`), operator)
      )
      const nodes = yield* Effect.forEach(
        requests,
        (request, i) => servers[i % 2]!.register(request.auth_id, "user0", "api-key:test"),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(new Set(nodes.map((node) => node.id)).size, 12)
      assert.strictEqual(new Set(nodes.map((node) => node.ip_addresses[0])).size, 12)
    }).pipe(Effect.scoped)
  )

  it.live("a request waited on one server and approved, or expired, by the other: its watcher hears it", () =>
    Effect.gen(function* () {
      const { schema } = yield* freshPostgresSchema(url)
      const store = PostgresStore.layer({ url: Redacted.make(url), schema })
      // A's requests expire after a second; B's sweeper waits its turn (an hour away), so only A expires them.
      const a = yield* Effect.map(Layer.build(authRequestsOn(store, { ttlMs: 1000 })), Context.get(AuthRequests))
      const b = yield* replica(schema)
      // B's watch, each state as it comes; failing the test if it does not end within 10 s.
      const watchOnB = (authId: string) =>
        Effect.gen(function* () {
          const states = yield* Queue.unbounded<string, Cause.Done | Error>()
          yield* b.watch(authId).pipe(
            Stream.runForEach((request) => Queue.offer(states, request.state)),
            Effect.timeoutOrElse({
              duration: "10 seconds",
              orElse: () => Effect.fail(new Error(`B's watch of ${authId} heard no end`))
            }),
            // Whoever reads the states learns how the watch ended.
            Effect.matchEffect({
              onFailure: (error) => Queue.fail(states, error),
              onSuccess: () => Queue.end(states)
            }),
            Effect.forkScoped
          )
          return states
        })
      const approved = yield* a.create(registration("approved-on-a"), operator)
      const approval = yield* watchOnB(approved.auth_id)
      assert.strictEqual(yield* Queue.take(approval), "pending")
      yield* a.approve(approved.auth_id, "api-key:test")
      assert.deepStrictEqual(yield* Stream.runCollect(Stream.fromQueue(approval)), ["approved"])

      const expiring = yield* a.create(registration("expired-by-a"), operator)
      const expiry = yield* watchOnB(expiring.auth_id)
      assert.deepStrictEqual(yield* Stream.runCollect(Stream.fromQueue(expiry)), ["pending", "expired"])
    }).pipe(Effect.scoped)
  )
})
