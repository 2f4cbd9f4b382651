import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"

/** A credential that stopped being valid: its id (an API key's prefix, a session's public id) and why, for the client. */
export interface Revocation {
  readonly id: string
  readonly message: string
}

/**
 * Where a live layer announces the credentials it revokes, so whatever was opened with one (a WebSocket stream)
 * can end. In memory: it covers revocations made through this process; a stream on another replica of a shared
 * store is not told (it still ends at the credential's expiry).
 */
export const makeRevocations = PubSub.unbounded<Revocation>()

/**
 * Fails once `id` is revoked. It subscribes before it asks the store (`stored`: the revocation if the store already
 * records one), so a revocation made between the credential's check and this call is seen either way.
 */
export const untilRevoked = (
  revocations: PubSub.PubSub<Revocation>,
  id: string,
  stored: Effect.Effect<Revocation | undefined>
): Effect.Effect<never, Unauthenticated> =>
  Effect.scoped(
    Effect.gen(function* () {
      const subscription = yield* PubSub.subscribe(revocations)
      const already = yield* stored
      const revoked = already ?? (yield* awaitId(subscription, id))
      return yield* new Unauthenticated({ message: revoked.message })
    })
  )

const awaitId = (subscription: PubSub.Subscription<Revocation>, id: string): Effect.Effect<Revocation> =>
  Effect.flatMap(PubSub.take(subscription), (revocation) =>
    revocation.id === id ? Effect.succeed(revocation) : awaitId(subscription, id)
  )

/** Sleeps (on the `Clock`, so `TestClock` drives it) until the epoch-millisecond instant `at`; at once if it passed. */
export const sleepUntil = (at: number): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Duration.millis(Math.max(0, at - now))))
