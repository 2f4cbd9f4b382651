import { assert, describe, it } from "@effect/vitest"
import type { Principal } from "@gatehouse-edge/contract/domain"
import { Deferred, Effect, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import { makeVerifiedKeyCache } from "../../src/auth/VerifiedKeyCache.js"

const admin: Principal = { method: "api_key", subject: "api-key:admin", roles: ["admin"], scopes: ["admin"] }
const verified = { principal: admin }

describe("VerifiedKeyCache", () => {
  it.effect("verifies a key once per TTL, never remembers a key that failed, and forgets on demand", () =>
    Effect.gen(function* () {
      const calls = yield* Ref.make(0)
      const verify = (ok: boolean) =>
        Effect.andThen(
          Ref.update(calls, (n) => n + 1),
          Effect.succeed(ok ? verified : undefined)
        )
      const cache = makeVerifiedKeyCache({ ttlMs: 60_000, maxEntries: 2 })
      for (let i = 0; i < 5; i++) assert.deepStrictEqual(yield* cache.lookup("good", verify(true)), admin)
      assert.strictEqual(yield* Ref.get(calls), 1)
      for (let i = 0; i < 3; i++) assert.isUndefined(yield* cache.lookup("bad", verify(false)))
      assert.strictEqual(yield* Ref.get(calls), 4, "failures are checked every time")
      yield* TestClock.adjust("59 seconds")
      yield* cache.lookup("good", verify(true))
      assert.strictEqual(yield* Ref.get(calls), 4)
      yield* TestClock.adjust("2 seconds")
      yield* cache.lookup("good", verify(true))
      assert.strictEqual(yield* Ref.get(calls), 5, "verified again after the TTL")
      yield* cache.forget
      yield* cache.lookup("good", verify(true))
      assert.strictEqual(yield* Ref.get(calls), 6)
    })
  )

  it.effect("never remembers a verification that was under way when the cache forgot", () =>
    Effect.gen(function* () {
      const cache = makeVerifiedKeyCache({ ttlMs: 60_000, maxEntries: 2 })
      const calls = yield* Ref.make(0)
      const readRow = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      // Reads the key row (still active), then waits: the revocation commits and the cache forgets meanwhile.
      const slowVerify = Effect.gen(function* () {
        yield* Ref.update(calls, (n) => n + 1)
        yield* Deferred.succeed(readRow, undefined)
        yield* Deferred.await(finish)
        return verified
      })
      const inFlight = yield* Effect.forkChild(cache.lookup("good", slowVerify))
      yield* Deferred.await(readRow)
      yield* cache.forget
      yield* Deferred.succeed(finish, undefined)
      assert.deepStrictEqual(yield* Fiber.join(inFlight), admin, "the request that began before the revocation")
      assert.strictEqual(yield* cache.size, 0, "the result read before the forget is not remembered")

      // The next request checks the store again, which now says revoked.
      const revoked = Effect.andThen(
        Ref.update(calls, (n) => n + 1),
        Effect.succeed(undefined)
      )
      assert.isUndefined(yield* cache.lookup("good", revoked))
      assert.strictEqual(yield* Ref.get(calls), 2)

      // A verification begun after the forget is remembered as usual.
      yield* cache.lookup("good", Effect.succeed(verified))
      assert.strictEqual(yield* cache.size, 1)
    })
  )

  it.effect("holds at most maxEntries keys, forgetting the oldest", () =>
    Effect.gen(function* () {
      const cache = makeVerifiedKeyCache({ ttlMs: 60_000, maxEntries: 2 })
      for (const key of ["a", "b", "c"]) yield* cache.lookup(key, Effect.succeed(verified))
      assert.strictEqual(yield* cache.size, 2)
      const calls = yield* Ref.make(0)
      yield* cache.lookup(
        "a",
        Effect.andThen(
          Ref.update(calls, (n) => n + 1),
          Effect.succeed(verified)
        )
      )
      assert.strictEqual(yield* Ref.get(calls), 1, "a was forgotten")
    })
  )

  it.effect("never serves a key past its own expiry, even within the TTL", () =>
    Effect.gen(function* () {
      const calls = yield* Ref.make(0)
      const cache = makeVerifiedKeyCache({ ttlMs: 60_000, maxEntries: 2 })
      const verify = Effect.andThen(
        Ref.update(calls, (n) => n + 1),
        Effect.succeed({ principal: admin, expiresAt: 10_000 })
      )
      yield* cache.lookup("expiring", verify)
      yield* TestClock.adjust("9 seconds")
      yield* cache.lookup("expiring", verify)
      assert.strictEqual(yield* Ref.get(calls), 1, "cached before the key expires")
      yield* TestClock.adjust("1 second")
      yield* cache.lookup("expiring", verify)
      assert.strictEqual(yield* Ref.get(calls), 2, "checked again once the key has expired")
    })
  )
})
