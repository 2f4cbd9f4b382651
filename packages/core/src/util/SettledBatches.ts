import type * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"

/** When a batch of {@link settledBatches} is complete. */
export interface SettleOptions {
  /** A batch ends once no item has arrived for this long. */
  readonly settleMs: number
  /** ... or this long after its first item, so items that never pause still get through. */
  readonly maxWaitMs: number
}

// One batch: the first item waited for as long as it takes, the next ones each within `settleMs`.
const takeSettled = <A>(queue: Queue.Dequeue<A>, options: SettleOptions) =>
  Effect.gen(function* () {
    const batch: Arr.NonEmptyArray<A> = [yield* Queue.take(queue)]
    const deadline = (yield* Clock.currentTimeMillis) + options.maxWaitMs
    while (true) {
      const left = deadline - (yield* Clock.currentTimeMillis)
      if (left <= 0) return batch
      const next = yield* Effect.timeoutOption(Queue.take(queue), Math.min(options.settleMs, left))
      if (Option.isNone(next)) return batch
      batch.push(next.value)
    }
  })

/**
 * A queue's items in batches, each emitted once the items have paused for `settleMs` (at most `maxWaitMs` after the
 * batch's first item). For file changes: an editor or a script writes a file in several steps, and a batch closed
 * a fixed time after the first change (`Stream.groupedWithin`) lets a slow writer's half-written file be read, and
 * a half-written YAML file is often still valid (the routes not yet written are simply gone).
 */
export const settledBatches = <A>(
  queue: Queue.Dequeue<A>,
  options: SettleOptions
): Stream.Stream<Arr.NonEmptyReadonlyArray<A>> => Stream.fromEffectRepeat(takeSettled(queue, options))
