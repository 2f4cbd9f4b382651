import { assert, describe, it } from "@effect/vitest"
import type { Scope } from "@gatehouse-edge/contract/domain"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import { Deferred, Effect, Fiber, Layer, Option, Redacted } from "effect"
import {
  ApiKeyRepository,
  ApiKeysLive,
  AuthenticationLive,
  EventBus,
  EventRepository,
  type Events,
  ServerSecrets,
  SessionRepository,
  SessionsLive,
  StoreLive
} from "../../src/index.js"
import { ApiKeys, Authentication, Sessions } from "../../src/services.js"

/**
 * The real key and session services, with the store's revocation held until `proceed` (after telling `inside`):
 * the request can be interrupted while its revocation commits, as when its client goes away.
 */
const heldRevocations = Effect.gen(function* () {
  const inside = yield* Deferred.make<void>()
  const proceed = yield* Deferred.make<void>()
  const hold = <A>(revoke: Effect.Effect<A>) =>
    Effect.andThen(Deferred.succeed(inside, undefined), Effect.andThen(Deferred.await(proceed), revoke))
  const keys = Layer.effect(
    ApiKeyRepository,
    Effect.map(ApiKeyRepository, (repository) =>
      ApiKeyRepository.of({ ...repository, revoke: (name, at) => hold(repository.revoke(name, at)) })
    )
  )
  const sessions = Layer.effect(
    SessionRepository,
    Effect.map(SessionRepository, (repository) =>
      SessionRepository.of({ ...repository, revoke: (id, at) => hold(repository.revoke(id, at)) })
    )
  )
  const layer = ApiKeysLive.layer.pipe(
    Layer.provideMerge(AuthenticationLive.layer),
    Layer.provideMerge(SessionsLive.layer({ ttlMs: 3_600_000 })),
    Layer.provide(Layer.merge(keys, sessions)),
    Layer.provideMerge(EventBus.layer({ historyCap: 1000 }) as Layer.Layer<Events, never, EventRepository>),
    Layer.provideMerge(
      Layer.mergeAll(EventRepository.layer, ApiKeyRepository.layer, SessionRepository.layer, ServerSecrets.layer)
    ),
    Layer.provideMerge(StoreLive.layerMemory)
  )
  return { inside, proceed, layer }
})

/** Interrupts `fiber` while its revocation is held, then lets the revocation commit. */
const interruptWhileCommitting = (
  fiber: Fiber.Fiber<unknown, unknown>,
  held: { inside: Deferred.Deferred<void>; proceed: Deferred.Deferred<void> }
) =>
  Effect.gen(function* () {
    yield* Deferred.await(held.inside)
    // Asked for now (the commit cannot be interrupted, so the fiber notices it at its next step), then awaited.
    fiber.interruptUnsafe()
    yield* Deferred.succeed(held.proceed, undefined)
    yield* Fiber.await(fiber)
  })

describe("a revocation whose request is interrupted while it commits", () => {
  it.live("an API key: its open streams end and it is refused at once", () =>
    Effect.gen(function* () {
      const held = yield* heldRevocations
      yield* Effect.gen(function* () {
        const keys = yield* ApiKeys
        const auth = yield* Authentication
        const { key } = yield* keys.create({ name: "ci", scopes: ["admin" as Scope] }, "admin")
        const credential = { _tag: "ApiKey", key: Redacted.make(key) } as const
        const principal = yield* auth.authenticate(credential)
        // A stream opened with the key, and the key verified once more (so the key cache holds it).
        const stream = yield* Effect.forkChild(auth.validUntilRevoked(principal))
        yield* auth.authenticate(credential)
        const revoke = yield* Effect.forkChild(keys.revoke("ci", "admin"))
        yield* interruptWhileCommitting(revoke, held)
        const ended = yield* Fiber.join(stream).pipe(Effect.flip, Effect.timeout("10 seconds"))
        assert.instanceOf(ended, Unauthenticated)
        assert.instanceOf(yield* Effect.flip(auth.authenticate(credential)), Unauthenticated)
      }).pipe(Effect.provide(held.layer), Effect.scoped)
    })
  )

  it.live("a session: its open streams end and its cookie is refused at once", () =>
    Effect.gen(function* () {
      const held = yield* heldRevocations
      yield* Effect.gen(function* () {
        const sessions = yield* Sessions
        const issued = yield* sessions.create({
          subject: "user:alice",
          method: "session",
          role: "admin",
          address: "10.0.0.7",
          userAgent: "test"
        })
        const principal = yield* sessions.authenticate(issued.cookie)
        const stream = yield* Effect.forkChild(sessions.validUntilEnded(principal.session!))
        yield* sessions.authenticate(issued.cookie)
        const revoke = yield* Effect.forkChild(sessions.revoke(issued.session.id, "admin"))
        yield* interruptWhileCommitting(revoke, held)
        const ended = yield* Fiber.join(stream).pipe(Effect.flip, Effect.timeout("10 seconds"))
        assert.instanceOf(ended, Unauthenticated)
        assert.instanceOf(yield* Effect.flip(sessions.authenticate(issued.cookie)), Unauthenticated)
        assert.isTrue(Option.isNone(yield* sessions.end(issued.cookie)), "already ended")
      }).pipe(Effect.provide(held.layer), Effect.scoped)
    })
  )
})
