import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as RcMap from "effect/RcMap"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * How long a shared poll may keep failing transiently before it ends its watchers' streams with the last failure:
 * 30 s. That outlasts what passes by itself (pveproxy or pvedaemon restarting on a package upgrade or a certificate
 * renewal, a few seconds; one lost pvestatd cycle, 10 s; a request that times out, 10 s, and the next that does too),
 * and a dashboard still learns of a real outage (a node powered off, cut off from the cluster) within half a minute.
 */
export const unreachableAfterMs = 30_000

/** How a shared poll paces itself and treats a failed poll. */
export interface SharedPollsOptions<E> {
  /** A poll every this many milliseconds, failed or not. */
  readonly intervalMs: number
  /** Whether a poll that failed so may well succeed next time (a 5xx, no answer); anything else ends the poll. */
  readonly isTransient: (error: E) => boolean
  /** How long transient failures may last before the poll ends with the last one ({@link unreachableAfterMs}). */
  readonly unreachableAfterMs?: number
}

/**
 * Polls shared by key: the first watcher of a key starts one poll (`poll` now, then every `intervalMs`), every
 * later watcher of that key joins it and gets the latest value at once, and the last one leaving stops it. So N
 * watchers of one node cost one upstream call per interval, not N. A transient failure sends nothing for its tick
 * and the poll goes on at its pace; a failure that will not pass, or transient ones for `unreachableAfterMs` without a
 * success between, end every watcher's stream with that failure.
 */
export const makeSharedPolls = <A, E>(
  poll: (key: string) => Effect.Effect<A, E>,
  options: SharedPollsOptions<E>
): Effect.Effect<(key: string) => Stream.Stream<A, E>, never, Scope.Scope> => {
  const outageMs = options.unreachableAfterMs ?? unreachableAfterMs
  return Effect.map(
    RcMap.make({
      lookup: (key: string) =>
        Effect.suspend(() => {
          // When the failures since the last success began; `undefined` while polls succeed.
          let failingSince: number | undefined
          const attempt = poll(key).pipe(
            Effect.map((value) => {
              failingSince = undefined
              return Option.some(value)
            }),
            Effect.catch((error) =>
              Effect.flatMap(Clock.currentTimeMillis, (now) => {
                failingSince ??= now
                return options.isTransient(error) && now - failingSince < outageMs
                  ? Effect.succeed(Option.none<A>())
                  : Effect.fail(error)
              })
            )
          )
          // Fixed: a tick every interval, however long the poll took (spaced would drift by each poll's duration).
          return Stream.fromEffectSchedule(attempt, Schedule.fixed(Duration.millis(options.intervalMs))).pipe(
            Stream.filter(Option.isSome),
            Stream.map((polled) => polled.value),
            // A slow watcher skips to the newest value instead of holding the others back.
            Stream.share({ capacity: 1, strategy: "sliding", replay: 1 })
          )
        }),
      // Released with the last watcher, so a later one never sees a value from a poll that had stopped.
      idleTimeToLive: Duration.zero
    }),
    (polls) => (key: string) => Stream.unwrap(RcMap.get(polls, key))
  )
}
