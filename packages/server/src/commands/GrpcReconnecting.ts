import { reconnectSchedule, resetAfterOf } from "@gatehouse-edge/client"
import type { AuthServiceCallError } from "@gatehouse-edge/transport-grpc/client"
import * as Clock from "effect/Clock"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"

// The typed client's backoff with its defaults: a delay drawn below 0.5 s doubling to 30 s, started over once a call
// has stayed up for 30 s.
const delays = reconnectSchedule()
const resetAfterMs = Duration.toMillis(resetAfterOf({}))

/**
 * `auth watch` over gRPC, followed again when the call fails with UNAVAILABLE (the server restarting, shutting
 * down or unreachable) after it gave a state, with the typed client's backoff (0.5 s doubling to 30 s, full jitter,
 * back to 0.5 s once a call stayed up 30 s) and its notices on stderr. Any other status (the request not found, the
 * key revoked) ends it as before, and so does a first call that never gave a state: a wrong address shows at once.
 * Each call starts with the request's current state, which is not printed again when it is the state printed last.
 */
export const reconnectingWatch = <A>(watch: () => Stream.Stream<A, AuthServiceCallError>) =>
  Stream.suspend(() => {
    let delivered = false
    let retrying = false
    let last: string | undefined
    // The backoff's steps since a call stayed up `resetAfterMs`, and when the current call gave its first state.
    // Stepped here, not by Stream.retry's schedule, which starts over at a call's first element: every call gives
    // one at once, so a server that drops each call right after it connected would be retried every 0.5 s.
    let step: Effect.Success<ReturnType<typeof Schedule.toStep<Duration.Duration, unknown, never, never>>> | undefined
    let connectedAt: number | undefined
    const nextDelay = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (step === undefined || (connectedAt !== undefined && now - connectedAt >= resetAfterMs)) {
        step = yield* Schedule.toStep(delays)
      }
      connectedAt = undefined
      // The schedule has no attempt limit: it is never done.
      const [, delay] = yield* Pull.catchDone(step(now, undefined), () => Effect.succeed([0, Duration.zero] as const))
      return delay
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
    return Stream.suspend(watch).pipe(
      Stream.tap(() =>
        Effect.gen(function* () {
          delivered = true
          connectedAt ??= yield* Clock.currentTimeMillis
          if (!retrying) return
          retrying = false
          yield* Console.error("gatehouse: reconnected")
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
