import { assert, describe, it } from "@effect/vitest"
import { ApiKeyNotFound } from "@gatehouse-edge/contract/domain"
import { Effect, Exit, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { Sessions } from "../../src/auth/Sessions.js"
import { Events } from "../../src/events/Events.js"
import { ApiKeyRepository, ApiKeysLive, AuthenticationLive } from "../../src/index.js"
import { storesUnderTest } from "../store/StoresUnderTest.js"
import { sessionsOn } from "./SignInTestLayer.js"

const liveOn = (store?: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  ApiKeysLive.layer.pipe(
    Layer.provideMerge(AuthenticationLive.layer),
    Layer.provideMerge(ApiKeyRepository.layer),
    Layer.provideMerge(sessionsOn(store))
  )
const live = liveOn()

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

// On PostgreSQL each statement waits for the server, so the two revocations interleave there.
for (const store of storesUnderTest) {
  describe.skipIf(store.skip)(`revoking an API key (${store.name})`, () => {
    it.effect("of two revocations of a key at once, one revokes it and is recorded; the other finds none", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const services = liveOn(yield* store.open)
          yield* revokeTwiceAtOnce.pipe(Effect.provide(services))
        })
      )
    )
  })
}

const revokeTwiceAtOnce = Effect.gen(function* () {
  const apiKeys = yield* ApiKeys
  const created = yield* apiKeys.create({ name: "ci", scopes: ["events:read"] }, "test")
  const both = yield* Effect.all([apiKeys.revoke("ci", "alice"), apiKeys.revoke("ci", "bob")], {
    concurrency: 2,
    mode: "result"
  })
  const revoked = both.filter(Result.isSuccess).map((result) => result.success)
  assert.deepStrictEqual(
    revoked.map((key) => key.prefix),
    [created.api_key.prefix]
  )
  assert.instanceOf(both.find(Result.isFailure)?.failure, ApiKeyNotFound)
  const history = yield* (yield* Events).history({ category: "api_key" })
  assert.deepStrictEqual(
    history.map((event) => event.action),
    ["created", "revoked"]
  )
})
