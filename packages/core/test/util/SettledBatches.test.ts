import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/testing/TestClock"
import { settledBatches } from "../../src/util/SettledBatches.js"

// Starts collecting the batches of a fresh queue; `offerAt` offers an item after moving the clock on.
const collecting = Effect.gen(function* () {
  const queue = yield* Queue.unbounded<number>()
  const batches: Array<ReadonlyArray<number>> = []
  yield* settledBatches(queue, { settleMs: 200, maxWaitMs: 1000 }).pipe(
    Stream.runForEach((batch) => Effect.sync(() => batches.push(batch))),
    Effect.forkScoped
  )
  yield* Effect.yieldNow
  const offerAt = (ms: number, item: number) =>
    Effect.andThen(TestClock.adjust(ms), Effect.andThen(Queue.offer(queue, item), Effect.yieldNow))
  return { batches, offerAt }
})

describe("settledBatches", () => {
  it.effect("a batch ends once its items have paused for the settle time, not a fixed time after the first", () =>
    Effect.gen(function* () {
      const { batches, offerAt } = yield* collecting
      yield* offerAt(0, 1)
      yield* offerAt(150, 2)
      yield* offerAt(150, 3)
      yield* TestClock.adjust(199)
      assert.deepStrictEqual(batches, [], "still settling 199 ms after the last item")
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(batches, [[1, 2, 3]])
      yield* offerAt(500, 4)
      yield* TestClock.adjust(200)
      assert.deepStrictEqual(batches, [[1, 2, 3], [4]])
    }).pipe(Effect.scoped)
  )

  it.effect("items that never pause are batched at most the longest wait after the batch's first", () =>
    Effect.gen(function* () {
      const { batches, offerAt } = yield* collecting
      for (let item = 0; item < 15; item++) yield* offerAt(item === 0 ? 0 : 100, item)
      // Items 0..9 arrived within 1,000 ms of item 0; the batch closed then, and item 10 began the next.
      assert.deepStrictEqual(batches, [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]])
      yield* TestClock.adjust(200)
      assert.deepStrictEqual(batches.at(-1), [10, 11, 12, 13, 14])
    }).pipe(Effect.scoped)
  )

  it.effect("nothing is emitted while nothing arrives", () =>
    Effect.gen(function* () {
      const { batches } = yield* collecting
      yield* TestClock.adjust(10_000)
      assert.deepStrictEqual(batches, [])
    }).pipe(Effect.scoped)
  )
})
