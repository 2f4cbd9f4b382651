import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as RcMap from "effect/RcMap"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/**
 * Polls shared by key: the first watcher of a key starts one poll (`poll` now, then every `intervalMs`), every
 * later watcher of that key joins it and gets the latest value at once, and the last one leaving stops it. So N
 * watchers of one node cost one upstream call per interval, not N.
 */
export const makeSharedPolls = <A, E>(
  poll: (key: string) => Effect.Effect<A, E>,
  intervalMs: number
): Effect.Effect<(key: string) => Stream.Stream<A, E>, never, Scope.Scope> =>
  Effect.map(
    RcMap.make({
      lookup: (key: string) =>
        // Fixed: a tick every interval, however long the poll took (spaced would drift by each poll's duration).
        Stream.fromEffectSchedule(poll(key), Schedule.fixed(Duration.millis(intervalMs))).pipe(
          // A slow watcher skips to the newest value instead of holding the others back.
          Stream.share({ capacity: 1, strategy: "sliding", replay: 1 })
        ),
      // Released with the last watcher, so a later one never sees a value from a poll that had stopped.
      idleTimeToLive: Duration.zero
    }),
    (polls) => (key: string) => Stream.unwrap(RcMap.get(polls, key))
  )
