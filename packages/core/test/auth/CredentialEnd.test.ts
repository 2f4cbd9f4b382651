import { assert, describe, it } from "@effect/vitest"
import type { Principal } from "@gatehouse-edge/contract/domain"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import { Clock, Effect, Fiber, Layer, Option, PubSub, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { Authentication } from "../../src/auth/Authentication.js"
import { makeRevocations, type Revocation, untilRevoked } from "../../src/auth/CredentialEnd.js"
import { SessionRepository } from "../../src/auth/SessionRepository.js"
import { Sessions } from "../../src/auth/Sessions.js"
import { ApiKeyRepository, ApiKeysLive, AuthenticationLive } from "../../src/index.js"
import { sessionsOn } from "./SignInTestLayer.js"

const HOUR = 3_600_000

// API keys, sessions and the authentication over both, as the server composes them (store in memory).
const live = ApiKeysLive.layer.pipe(
  Layer.provideMerge(AuthenticationLive.layer),
  Layer.provideMerge(ApiKeyRepository.layer),
  Layer.provideMerge(sessionsOn(undefined, HOUR))
)

const alice = {
  subject: "user:alice",
  method: "session",
  role: "operator",
  address: "10.0.0.7",
  userAgent: "t"
} as const

const keyPrincipal = (name: string, expires_in_s?: number) =>
  Effect.gen(function* () {
    const created = yield* (yield* ApiKeys).create(
      { name, scopes: ["events:read"], ...(expires_in_s === undefined ? {} : { expires_in_s }) },
      "test"
    )
    return yield* (yield* Authentication).authenticate({ _tag: "ApiKey", key: Redacted.make(created.key) })
  })

// The signal of a principal, running as a stream's would; yields so it has subscribed and asked the store.
const watch = (principal: Principal) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild((yield* Authentication).validUntilRevoked(principal))
    for (let i = 0; i < 10; i++) yield* Effect.yieldNow
    assert.isUndefined(fiber.pollUnsafe(), "a valid credential's signal has not fired")
    return fiber
  })

const reasonOf = (fiber: Fiber.Fiber<never, Unauthenticated>) =>
  Effect.map(Effect.flip(Fiber.join(fiber)), (error) => {
    assert.instanceOf(error, Unauthenticated)
    return error.message
  })

describe("Authentication.validUntilRevoked", () => {
  it.effect("fires for a revoked API key only, at once", () =>
    Effect.gen(function* () {
      const revoked = yield* watch(yield* keyPrincipal("revoked"))
      const other = yield* watch(yield* keyPrincipal("other"))
      yield* (yield* ApiKeys).revoke("revoked", "api-key:admin")
      assert.strictEqual(yield* reasonOf(revoked), "API key revoked")
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      assert.isUndefined(other.pollUnsafe(), "another key's stream is untouched")
    }).pipe(Effect.provide(live))
  )

  it.effect("fires for a key revoked before it was asked (the store says so)", () =>
    Effect.gen(function* () {
      const principal = yield* keyPrincipal("early")
      yield* (yield* ApiKeys).revoke("early", "api-key:admin")
      const error = yield* Effect.flip((yield* Authentication).validUntilRevoked(principal))
      assert.strictEqual(error.message, "API key revoked")
    }).pipe(Effect.provide(live))
  )

  it.effect("fires at an API key's expiry instant, not before", () =>
    Effect.gen(function* () {
      const expiring = yield* watch(yield* keyPrincipal("temp", 60))
      const lasting = yield* watch(yield* keyPrincipal("lasting"))
      yield* TestClock.adjust("59999 millis")
      assert.isUndefined(expiring.pollUnsafe(), "a millisecond before its expiry")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* reasonOf(expiring), "API key expired")
      assert.isUndefined(lasting.pollUnsafe(), "a key without expiry")
    }).pipe(Effect.provide(live))
  )

  it.effect("fires for a revoked or signed-out session only", () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const first = yield* sessions.create(alice)
      const second = yield* sessions.create({ ...alice, subject: "user:bob" })
      const third = yield* sessions.create({ ...alice, subject: "user:carol" })
      const authenticate = (cookie: Redacted.Redacted<string>) =>
        Authentication.use((auth) => auth.authenticate({ _tag: "Session", cookie }))
      const revoked = yield* watch(yield* authenticate(first.cookie))
      const signedOut = yield* watch(yield* authenticate(second.cookie))
      const untouched = yield* watch(yield* authenticate(third.cookie))
      yield* sessions.revoke(first.session.id, "api-key:admin")
      assert.strictEqual(yield* reasonOf(revoked), "session revoked")
      assert.isUndefined(signedOut.pollUnsafe())
      yield* sessions.end(second.cookie)
      assert.strictEqual(yield* reasonOf(signedOut), "session signed out")
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      assert.isUndefined(untouched.pollUnsafe(), "another session's stream is untouched")
    }).pipe(Effect.provide(live))
  )

  it.effect("fires at a session's expiry, later if it was renewed meanwhile", () =>
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const issued = yield* sessions.create(alice)
      const fiber = yield* watch(yield* sessions.authenticate(issued.cookie))
      // Another request of the browser half-way slides the expiry to 1h30.
      yield* TestClock.adjust("30 minutes")
      assert.isTrue((yield* sessions.authenticate(issued.cookie)).session?.renewed)
      yield* TestClock.adjust("30 minutes")
      for (let i = 0; i < 10; i++) yield* Effect.yieldNow
      assert.isUndefined(fiber.pollUnsafe(), "renewed: not at the first expiry")
      yield* TestClock.adjust("29 minutes")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* reasonOf(fiber), "session expired")
    }).pipe(Effect.provide(live))
  )

  it.effect(
    "fires within a minute for a key or a session revoked by another replica (straight in the shared store)",
    () =>
      Effect.gen(function* () {
        const keyStream = yield* watch(yield* keyPrincipal("elsewhere"))
        const issued = yield* (yield* Sessions).create(alice)
        const sessionStream = yield* watch(yield* (yield* Sessions).authenticate(issued.cookie))
        const now = yield* Clock.currentTimeMillis
        // What the other replica's revocations write; this process is not told.
        assert.isTrue(Option.isSome(yield* (yield* ApiKeyRepository).revoke("elsewhere", new Date(now).toISOString())))
        assert.isTrue(Option.isSome(yield* (yield* SessionRepository).revoke(issued.session.id, now)))
        yield* TestClock.adjust("59 seconds")
        assert.isUndefined(keyStream.pollUnsafe(), "not before the store is asked again")
        assert.isUndefined(sessionStream.pollUnsafe(), "not before the store is asked again")
        yield* TestClock.adjust("1 second")
        assert.strictEqual(yield* reasonOf(keyStream), "API key revoked")
        assert.strictEqual(yield* reasonOf(sessionStream), "session revoked")
      }).pipe(Effect.provide(live))
  )

  it.effect("never fires for the unix socket's principal (no credential)", () =>
    Effect.gen(function* () {
      const fiber = yield* watch({ method: "unix_socket", subject: "unix-socket", roles: ["admin"], scopes: ["admin"] })
      yield* TestClock.adjust("1000 days")
      assert.isUndefined(fiber.pollUnsafe())
    }).pipe(Effect.provide(live))
  )
})

// A store that answers `answers` in turn (a thrown Error: it cannot be reached), counting the questions.
const storeAnswering = (...answers: ReadonlyArray<Revocation | undefined | Error>) => {
  let asked = 0
  const stored = Effect.suspend(() => {
    const answer = answers[Math.min(asked++, answers.length - 1)]
    return answer instanceof Error ? Effect.die(answer) : Effect.succeed(answer)
  })
  return { stored, asked: () => asked }
}

const unreachable = new Error("the server's store cannot be reached")
const revokedInStore: Revocation = { id: "abc", message: "API key revoked" }

// The signal over a given store, forked; yields so it has subscribed and asked the store once.
const signalOver = (stored: Effect.Effect<Revocation | undefined>) =>
  Effect.gen(function* () {
    const revocations = yield* makeRevocations
    const fiber = yield* Effect.forkChild(untilRevoked(revocations, "abc", stored))
    for (let i = 0; i < 10; i++) yield* Effect.yieldNow
    return { revocations, fiber }
  })

describe("untilRevoked", () => {
  it.effect("goes on when the store cannot be reached at first: the next check decides", () =>
    Effect.gen(function* () {
      const store = storeAnswering(unreachable, undefined)
      const { revocations, fiber } = yield* signalOver(store.stored)
      assert.strictEqual(store.asked(), 1)
      assert.isUndefined(fiber.pollUnsafe(), "a store failing once ends no stream")
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(store.asked(), 2, "asked again a minute later")
      assert.isUndefined(fiber.pollUnsafe(), "not revoked: still waiting")
      // Still listening for this process's revocations too.
      yield* PubSub.publish(revocations, { id: "abc", message: "API key revoked" })
      assert.strictEqual(yield* reasonOf(fiber), "API key revoked")
    })
  )

  it.effect("ends at the next check when the store, back, records a revocation", () =>
    Effect.gen(function* () {
      const { fiber } = yield* signalOver(storeAnswering(unreachable, revokedInStore).stored)
      yield* TestClock.adjust("59 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* reasonOf(fiber), "API key revoked")
    })
  )

  it.effect("ends at once when the store's first answer is a revocation", () =>
    Effect.gen(function* () {
      const { fiber } = yield* signalOver(storeAnswering(revokedInStore).stored)
      assert.isDefined(fiber.pollUnsafe(), "ended without waiting for a recheck")
      assert.strictEqual(yield* reasonOf(fiber), "API key revoked")
    })
  )
})
