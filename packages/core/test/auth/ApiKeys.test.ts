import { assert, describe, it } from "@effect/vitest"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { apiKeyPrefix, generateApiKey, keyMatches, sha256Hex } from "../../src/auth/ApiKeyFormat.js"
import { ApiKeyConflict, ApiKeyRepository, type StoredApiKey } from "../../src/auth/ApiKeyRepository.js"
import { Authentication } from "../../src/auth/Authentication.js"
import * as AuthenticationLive from "../../src/auth/AuthenticationLive.js"
import { Sessions } from "../../src/auth/Sessions.js"
import { generateUnusedApiKey } from "../../src/auth/UnusedApiKey.js"
import * as StoreLive from "../../src/store/StoreLive.js"

const stored = (name: string, key = generateApiKey(), extra: Partial<StoredApiKey> = {}): StoredApiKey => ({
  id: `id-${name}-${key.prefix}`,
  name,
  prefix: key.prefix,
  sha256: key.sha256,
  roles: ["admin"],
  scopes: ["admin"],
  created_at: "2026-01-01T00:00:00.000Z",
  expires_at: null,
  last_used_at: null,
  revoked_at: null,
  ...extra
})

const services = Effect.map(
  Layer.build(
    Layer.merge(AuthenticationLive.layer, Layer.empty).pipe(
      Layer.provideMerge(ApiKeyRepository.layer),
      Layer.provide(Sessions.layerTest),
      Layer.provide(StoreLive.layerMemory)
    )
  ),
  (context) => ({ keys: Context.get(context, ApiKeyRepository), auth: Context.get(context, Authentication) })
)

const authenticate = (auth: Authentication["Service"], key: string) =>
  auth.authenticate({ _tag: "ApiKey", key: Redacted.make(key) })

describe("API key format", () => {
  it("gh_<8 lower-case alphanumerics>_<43 url-safe characters>, 256 random bits, hashed with SHA-256", () => {
    const { key, prefix, sha256 } = generateApiKey()
    assert.match(key, /^gh_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/)
    assert.strictEqual(apiKeyPrefix(key), prefix)
    assert.strictEqual(sha256Hex(key), sha256)
    assert.isTrue(keyMatches(key, sha256))
    assert.isFalse(keyMatches(`${key}x`, sha256))
    assert.isUndefined(apiKeyPrefix("gh_short_x"))
    assert.isUndefined(apiKeyPrefix(`Bearer ${key}`))
  })
})

describe("ApiKeyRepository", () => {
  it.effect("stores keys, finds them by prefix, refuses a duplicate name or prefix, revokes by name", () =>
    Effect.gen(function* () {
      const { keys } = yield* services
      const admin = stored("admin")
      yield* keys.insert(admin)
      assert.deepStrictEqual(yield* keys.findByPrefix(admin.prefix), Option.some(admin))
      assert.isTrue(Option.isNone(yield* keys.findByPrefix("zzzzzzzz")))
      assert.instanceOf(yield* Effect.flip(keys.insert(stored("admin"))), ApiKeyConflict)
      assert.instanceOf(yield* Effect.flip(keys.insert({ ...stored("other"), prefix: admin.prefix })), ApiKeyConflict)
      yield* keys.touch(admin.id, "2026-02-02T00:00:00.000Z")
      assert.strictEqual(
        Option.getOrThrow(yield* keys.findByPrefix(admin.prefix)).last_used_at,
        "2026-02-02T00:00:00.000Z"
      )
      assert.deepStrictEqual(
        yield* keys.revoke("admin", "2026-03-03T00:00:00.000Z"),
        Option.some({ ...admin, last_used_at: "2026-02-02T00:00:00.000Z", revoked_at: "2026-03-03T00:00:00.000Z" })
      )
      assert.isTrue(Option.isNone(yield* keys.revoke("admin", "2026-03-04T00:00:00.000Z")), "nothing left to revoke")
      // The name is free again once the old key is revoked; the revoked one stays, for the record.
      yield* keys.insert(stored("admin"))
      const all = yield* keys.list
      assert.sameDeepMembers(
        all.map((k) => [k.name, k.revoked_at]),
        [
          ["admin", "2026-03-03T00:00:00.000Z"],
          ["admin", null]
        ]
      )
    }).pipe(Effect.scoped)
  )
})

describe("generateUnusedApiKey", () => {
  it.effect("draws again when a stored key, revoked or not, has the prefix drawn", () =>
    Effect.gen(function* () {
      const { keys } = yield* services
      const taken = stored("taken")
      const revoked = stored("gone", generateApiKey(), { revoked_at: "2026-01-02T00:00:00.000Z" })
      yield* keys.insert(taken)
      yield* keys.insert(revoked)
      const fresh = generateApiKey()
      const draws = [{ ...fresh, prefix: taken.prefix }, { ...fresh, prefix: revoked.prefix }, fresh]
      let drawn = 0
      const key = yield* generateUnusedApiKey(keys, () => draws[drawn++]!)
      assert.deepStrictEqual([key, drawn], [fresh, 3])
      // It is stored without a conflict.
      yield* keys.insert(stored("new", key))
    }).pipe(Effect.scoped)
  )
})

describe("Authentication over stored keys", () => {
  it.effect("accepts a stored key; refuses unknown, malformed, wrong-secret, revoked and expired keys alike", () =>
    Effect.gen(function* () {
      const { keys, auth } = yield* services
      const good = generateApiKey()
      const revoked = generateApiKey()
      const expired = generateApiKey()
      yield* keys.insert(stored("script", good))
      yield* keys.insert(stored("old", revoked, { revoked_at: "2026-01-02T00:00:00.000Z" }))
      yield* keys.insert(stored("temp", expired, { expires_at: "1970-01-01T00:00:10.000Z" }))
      const principal = yield* authenticate(auth, good.key)
      assert.deepStrictEqual(principal, {
        method: "api_key",
        subject: "api-key:script",
        roles: ["admin"],
        scopes: ["admin"],
        api_key: { prefix: good.prefix, expires_at: null }
      })
      const wrongSecret = `gh_${good.prefix}_${"x".repeat(43)}`
      yield* TestClock.adjust("20 seconds")
      for (const key of [generateApiKey().key, "not-a-key", wrongSecret, revoked.key, expired.key]) {
        const error = yield* Effect.flip(authenticate(auth, key))
        assert.instanceOf(error, Unauthenticated, key)
        assert.strictEqual(error.message, "missing or invalid API key")
      }
      assert.isNotNull(Option.getOrThrow(yield* keys.findByPrefix(good.prefix)).last_used_at, "use is recorded")
    }).pipe(Effect.scoped)
  )

  it.effect("a revoked key stops working once the minute it is trusted without checking has passed", () =>
    Effect.gen(function* () {
      const { keys, auth } = yield* services
      const key = generateApiKey()
      yield* keys.insert(stored("script", key))
      yield* authenticate(auth, key.key)
      yield* keys.revoke("script", "2026-01-02T00:00:00.000Z")
      yield* authenticate(auth, key.key)
      yield* TestClock.adjust("61 seconds")
      assert.instanceOf(yield* Effect.flip(authenticate(auth, key.key)), Unauthenticated)
    }).pipe(Effect.scoped)
  )
})
