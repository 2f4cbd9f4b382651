import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { Authentication } from "../../src/auth/Authentication.js"
import { Sessions } from "../../src/auth/Sessions.js"
import { ApiKeyRepository, ApiKeysLive, AuthenticationLive } from "../../src/index.js"
import { sessionsOn } from "./SignInTestLayer.js"

// A store that can still be read but no longer written (a full disk: SQLITE_FULL; here SQLite's own `query_only`,
// which refuses every write of the connection the same way). Recording a key's use and sliding a session's expiry
// are writes on the way of a read: they must not turn every request into a 500.

const HOUR = 3_600_000

const live = ApiKeysLive.layer.pipe(
  Layer.provideMerge(AuthenticationLive.layer),
  Layer.provideMerge(ApiKeyRepository.layer),
  Layer.provideMerge(sessionsOn(undefined, HOUR))
)

const stopWrites = Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
  Effect.orDie(sql`PRAGMA query_only = 1`)
)

describe("authentication on a store that cannot write", () => {
  it.effect("an API key not verified yet is still accepted (its last use goes unrecorded)", () =>
    Effect.gen(function* () {
      const created = yield* (yield* ApiKeys).create({ name: "reader", scopes: ["events:read"] }, "test")
      yield* stopWrites
      const principal = yield* (yield* Authentication).authenticate({ _tag: "ApiKey", key: Redacted.make(created.key) })
      assert.strictEqual(principal.api_key?.prefix, created.api_key.prefix)
    }).pipe(Effect.provide(live))
  )

  it.effect("a session due for renewal is still accepted, until its current expiry, and not renewed", () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const issued = yield* sessions.create({
        subject: "user:alice",
        method: "session",
        role: "operator",
        address: "10.0.0.7",
        userAgent: "t"
      })
      yield* TestClock.adjust("10 minutes")
      yield* stopWrites
      const principal = yield* sessions.authenticate(issued.cookie)
      assert.strictEqual(principal.subject, "user:alice")
      assert.isFalse(principal.session?.renewed, "not renewed: the cookie is not sent again")
      assert.strictEqual(principal.session?.expires_at, issued.session.expires_at)
    }).pipe(Effect.provide(live))
  )
})
