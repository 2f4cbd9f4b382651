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
 * can end at once. In memory: it covers revocations made through this process; one made by another replica of a
 * shared store is found in the store (see {@link recheckEvery}).
 */
export const makeRevocations = PubSub.unbounded<Revocation>()

/**
 * How often the store is asked again about the credential of a stream still open: a revocation made by another
 * replica of a shared store reaches this one only there. A minute, as long as a verified API key is taken as valid
 * without asking (`AuthenticationLive`): a revoked key ends everywhere within a minute, its requests and its streams.
 */
export const recheckEvery = Duration.minutes(1)

/**
 * Fails once `id` is revoked. It subscribes before it asks the store (`stored`: the revocation if the store already
 * records one), so a revocation made between the credential's check and this call is seen either way; then it
 * asks the store again every {@link recheckEvery}.
 */
export const untilRevoked = (
  revocations: PubSub.PubSub<Revocation>,
  id: string,
  stored: Effect.Effect<Revocation | undefined>
): Effect.Effect<never, Unauthenticated> =>
  Effect.scoped(
    Effect.gen(function* () {
      const subscription = yield* PubSub.subscribe(revocations)
      const already = yield* askStore(stored)
      const revoked = already ?? (yield* Effect.raceFirst(awaitId(subscription, id), foundInStore(stored)))
      return yield* new Unauthenticated({ message: revoked.message })
    })
  )

// A store that fails for a moment ends no stream, the first time it is asked as at every recheck: the credential
// was verified without it (a cached key, a session), and a stream that needs no store goes on; the next check
// decides.
const askStore = (stored: Effect.Effect<Revocation | undefined>): Effect.Effect<Revocation | undefined> =>
  Effect.catchDefect(stored, () => Effect.succeed(undefined))

const foundInStore = (stored: Effect.Effect<Revocation | undefined>): Effect.Effect<Revocation> =>
  Effect.flatMap(Effect.delay(askStore(stored), recheckEvery), (revoked) =>
    revoked === undefined ? foundInStore(stored) : Effect.succeed(revoked)
  )

const awaitId = (subscription: PubSub.Subscription<Revocation>, id: string): Effect.Effect<Revocation> =>
  Effect.flatMap(PubSub.take(subscription), (revocation) =>
    revocation.id === id ? Effect.succeed(revocation) : awaitId(subscription, id)
  )

/** Sleeps (on the `Clock`, so `TestClock` drives it) until the epoch-millisecond instant `at`; at once if it passed. */
export const sleepUntil = (at: number): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Duration.millis(Math.max(0, at - now))))
