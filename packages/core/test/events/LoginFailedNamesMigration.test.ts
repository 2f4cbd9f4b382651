import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { EventRepository } from "../../src/events/EventRepository.js"
import { storesBefore } from "../store/StoresBefore.js"

// Builds before a refused password sign-in named only configured users recorded whatever was typed as the name:
// sometimes a password, readable by anyone with `events:read`.

const row = (n: number, action: string, level: string, data: Record<string, unknown>) => ({
  id: `0190f5c4-0000-7000-8000-00000000000${n}`,
  timestamp: `2026-01-01T00:00:0${n}.000Z`,
  level,
  category: "auth",
  action,
  data: JSON.stringify(data)
})

const stored = [
  row(1, "login_failed", "warn", {
    username: "correct horse battery staple",
    method: "session",
    address: "10.0.0.9",
    reason: "unknown user"
  }),
  row(2, "login_failed", "warn", {
    username: "alice",
    method: "session",
    address: "10.0.0.9",
    reason: "wrong password"
  }),
  row(3, "login_failed", "warn", { username: "", method: "session", address: "10.0.0.9", reason: "unknown user" }),
  // An OpenID Connect refusal names the provider's subject id, which nobody typed: kept.
  row(4, "login_failed", "warn", {
    username: "248289761001",
    method: "oidc",
    address: "10.0.0.9",
    reason: "not in allowed_users or allowed_groups"
  }),
  row(5, "login", "info", { subject: "user:alice", method: "session", address: "10.0.0.9" })
]

describe.each(storesBefore)("stored refused password sign-ins, upgraded ($name)", (store) => {
  // On the live clock: @effect/sql-pg's pool does not make progress under TestClock.
  it.live.skipIf(store.skip)("lose the name that was tried; every other event and field stays as it was", () =>
    Effect.gen(function* () {
      const current = yield* store.before(
        11,
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`INSERT INTO events ${sql.insert([stored[0]!, ...stored.slice(1)])}`
        )
      )
      const events = yield* Effect.flatMap(EventRepository, (repository) => repository.list({})).pipe(
        Effect.provide(EventRepository.layer.pipe(Layer.provide(current)))
      )
      assert.deepStrictEqual(
        events.map((event) => [event.action, event.data]),
        [
          ["login_failed", { username: "", method: "session", address: "10.0.0.9", reason: "unknown user" }],
          ["login_failed", { username: "", method: "session", address: "10.0.0.9", reason: "wrong password" }],
          ["login_failed", { username: "", method: "session", address: "10.0.0.9", reason: "unknown user" }],
          [
            "login_failed",
            {
              username: "248289761001",
              method: "oidc",
              address: "10.0.0.9",
              reason: "not in allowed_users or allowed_groups"
            }
          ],
          ["login", { subject: "user:alice", method: "session", address: "10.0.0.9" }]
        ]
      )
      assert.deepStrictEqual(
        events.map((event) => event.id),
        stored.map((event) => event.id)
      )
    }).pipe(Effect.scoped)
  )
})
