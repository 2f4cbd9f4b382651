import { type HealthMap, sameStatuses } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"

/** Inputs of {@link makeHealthFeed}. */
export interface HealthFeedOptions {
  /** The current map, fresh. */
  readonly snapshot: Effect.Effect<HealthMap>
  /** Emits whenever the map may have changed in a way that matters (a status, the set of routes). */
  readonly signals: Stream.Stream<unknown>
  /** The least time between two published maps. */
  readonly intervalMs: number
}

/**
 * The health feed every watcher shares: one loop follows `signals`, takes a fresh snapshot, and publishes it only
 * when a status or the set of routes differs from the last published map, at most once per `intervalMs` (signals
 * that arrive meanwhile collapse into one, so the newest state always gets out). Subscribing costs a subscription
 * to the published value, never a second loop: N watchers cost one upstream. Each subscriber gets the current
 * map first, then every published one. A status that flips and flips back within one interval is not published
 * (the `health/*` events record every transition). The loop runs in the caller's scope.
 */
export const makeHealthFeed = Effect.fnUntraced(function* (
  options: HealthFeedOptions
): Effect.fn.Return<Stream.Stream<HealthMap>, never, Scope.Scope> {
  const published = yield* SubscriptionRef.make(yield* options.snapshot)
  yield* options.signals.pipe(
    Stream.buffer({ capacity: 1, strategy: "sliding" }),
    Stream.runForEach(() =>
      Effect.gen(function* () {
        const map = yield* options.snapshot
        if (sameStatuses(yield* SubscriptionRef.get(published), map)) return
        yield* SubscriptionRef.set(published, map)
        yield* Effect.sleep(options.intervalMs)
      })
    ),
    Effect.forkScoped
  )
  // The published map can be old in its latencies and times, so a new watcher starts from a fresh one — unless
  // the statuses have moved since the last publication: then a publication is on its way, and starting from the
  // fresh map would leave this watcher ahead of the feed (a status that flips back within the throttle window
  // would never reach it).
  return SubscriptionRef.changes(published).pipe(
    Stream.zipWithIndex,
    Stream.mapEffect(([map, index]) =>
      index === 0
        ? Effect.map(options.snapshot, (fresh) => (sameStatuses(fresh, map) ? fresh : map))
        : Effect.succeed(map)
    )
  )
})
