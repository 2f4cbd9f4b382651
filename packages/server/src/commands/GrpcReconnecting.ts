import type { AuthServiceCallError } from "@gatehouse-edge/transport-grpc/client"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"

// The typed client's backoff (see its Reconnect.ts): a delay drawn below 0.5 s doubling to 30 s, started over once a
// call has stayed up for 30 s. Restated, not imported: the HTTP client would then load with every command
// (test/CliModules.test.ts).
const initialDelayMs = 500
const maxDelayMs = 30_000
const resetAfterMs = 30_000

/**
 * The states of a watch without the ones equal to the state before: the server repeats a pending state as a
 * heartbeat (every 15 s), and a new call starts with the current state, which a reader has seen.
 */
export const withoutRepeats = <A>(states: Stream.Stream<A, AuthServiceCallError>) =>
  Stream.suspend(() => {
    let last: string | undefined
    return Stream.filter(states, (state) => {
      const json = JSON.stringify(state)
      const repeated = json === last
      last = json
      return !repeated
    })
  })

/**
 * `auth watch` over gRPC, followed again when the call fails with UNAVAILABLE (the server restarting, shutting
 * down or unreachable) after it gave a state, with the typed client's backoff (0.5 s doubling to 30 s, full jitter,
 * back to 0.5 s once a call stayed up 30 s) and its notices on stderr. Any other status (the request not found, the
 * key revoked) ends it as before, and so does a first call that never gave a state: a wrong address shows at once.
 * Each call starts with the request's current state, which is not printed again when it is the state printed last.
 * A call that stays silent past the client's limit (three heartbeats) fails UNAVAILABLE, so a server that froze or
 * vanished without closing the connection is reconnected to as well.
 */
export const reconnectingWatch = <A>(watch: () => Stream.Stream<A, AuthServiceCallError>) =>
  Stream.suspend(() => {
    let delivered = false
    let retrying = false
    // Failed calls since one stayed up `resetAfterMs`, and when the current call gave its first state. Kept here,
    // not in the schedule: Stream.retry starts its schedule over at a call's first element, and every call gives
    // one at once, so a server that drops each call right after it connected would be retried every 0.5 s.
    let attempt = 0
    let connectedAt: number | undefined
    const nextDelay = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (connectedAt !== undefined && now - connectedAt >= resetAfterMs) attempt = 0
      connectedAt = undefined
      attempt++
      const cap = Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1))
      return Duration.millis(Math.floor(cap * (yield* Random.next)))
    })
    const backoff = Schedule.spaced(0).pipe(
      Schedule.setInputType<AuthServiceCallError>(),
      Schedule.while(({ input }) => delivered && input.statusName === "UNAVAILABLE"),
      Schedule.modifyDelay(() => nextDelay),
      Schedule.tap(({ input, duration }) => {
        retrying = true
        const seconds = (Duration.toMillis(duration) / 1000).toFixed(1)
        return Console.error(`gatehouse: connection lost (${input.message}), reconnecting in ${seconds} s`)
      })
    )
    return withoutRepeats(
      Stream.suspend(watch).pipe(
        Stream.tap(() =>
          Effect.gen(function* () {
            delivered = true
            connectedAt ??= yield* Clock.currentTimeMillis
            if (!retrying) return
            retrying = false
            yield* Console.error("gatehouse: reconnected")
          })
        ),
        Stream.retry(backoff)
      )
    )
  })
