import type { AuthServiceCallError } from "@gatehouse-edge/transport-grpc/client"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"

/**
 * `auth watch` over gRPC, followed again when the call fails with UNAVAILABLE (the server restarting, shutting
 * down or unreachable) after it gave a state, with the typed client's backoff (0.5 s doubling to 30 s, full jitter)
 * and its notices on stderr. Any other status (the request not found, the key revoked) ends it as before, and so
 * does a first call that never gave a state: a wrong address shows at once. Each call starts with the request's
 * current state, which is not printed again when it is the state printed last.
 */
export const reconnectingWatch = <A>(watch: () => Stream.Stream<A, AuthServiceCallError>) =>
  Stream.suspend(() => {
    let delivered = false
    let retrying = false
    let last: string | undefined
    const backoff = Schedule.min([Schedule.exponential("500 millis"), Schedule.spaced("30 seconds")]).pipe(
      Schedule.modifyDelay(({ duration }) =>
        Effect.map(Random.next, (random) => Duration.millis(Math.floor(Duration.toMillis(duration) * random)))
      ),
      Schedule.setInputType<AuthServiceCallError>(),
      Schedule.while(({ input }) => delivered && input.statusName === "UNAVAILABLE"),
      Schedule.tap(({ input, duration }) => {
        retrying = true
        const seconds = (Duration.toMillis(duration) / 1000).toFixed(1)
        return Console.error(`gatehouse: connection lost (${input.message}), reconnecting in ${seconds} s`)
      })
    )
    // Stream.retry starts the backoff over at a call's first state: every call gives one at once when it connects.
    return Stream.suspend(watch).pipe(
      Stream.tap(() =>
        Effect.suspend(() => {
          delivered = true
          if (!retrying) return Effect.void
          retrying = false
          return Console.error("gatehouse: reconnected")
        })
      ),
      Stream.retry(backoff),
      Stream.filter((state) => {
        const json = JSON.stringify(state)
        const repeated = json === last
        last = json
        return !repeated
      })
    )
  })
