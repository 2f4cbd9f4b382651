import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { Sessions } from "../../src/auth/Sessions.js"
import { ApiKeyRepository, ApiKeysLive, AuthenticationLive } from "../../src/index.js"
import { sessionsOn } from "./SignInTestLayer.js"

const live = ApiKeysLive.layer.pipe(
  Layer.provideMerge(AuthenticationLive.layer),
  Layer.provideMerge(ApiKeyRepository.layer),
  Layer.provideMerge(sessionsOn())
)

// From now on every event insert fails, as a full disk would make it fail.
const eventsFail = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`CREATE TRIGGER no_events BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'the disk is full'); END`
)

const activeKeys = Effect.map(
  Effect.flatMap(ApiKeyRepository, (keys) => keys.list),
  (keys) => keys.filter((key) => key.revoked_at === null).map((key) => key.name)
)

describe("API keys and sessions change with their events, or not at all", () => {
  it.effect("a key whose created event cannot be stored is not created; one whose revoked event cannot be, stays", () =>
    Effect.gen(function* () {
      const apiKeys = yield* ApiKeys
      yield* apiKeys.create({ name: "kept", scopes: ["events:read"] }, "test")
      yield* eventsFail
      assert.isTrue(Exit.isFailure(yield* Effect.exit(apiKeys.create({ name: "lost", scopes: [] }, "test"))))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(apiKeys.revoke("kept", "test"))))
      assert.deepStrictEqual(yield* activeKeys, ["kept"])
    }).pipe(Effect.provide(live))
  )

  it.effect("a session whose revoked or signed-out event cannot be stored stays active", () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const issued = yield* sessions.create({
        subject: "user:alice",
        method: "session",
        role: "operator",
        address: "10.0.0.7",
        userAgent: "t"
      })
      yield* eventsFail
      assert.isTrue(Exit.isFailure(yield* Effect.exit(sessions.revoke(issued.session.id, "admin"))))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(sessions.end(issued.cookie))))
      assert.deepStrictEqual(
        (yield* sessions.list).map((s) => s.id),
        [issued.session.id]
      )
    }).pipe(Effect.provide(live))
  )
})
