import { assert, describe, it } from "@effect/vitest"
import { Effect, Queue, Ref, Stream } from "effect"
import { shareWithReplay } from "../../src/util/ShareWithReplay.js"

/** A source the test feeds chunk by chunk, counting how often it was started. */
const controlledSource = Effect.gen(function* () {
  const chunks = yield* Queue.unbounded<ReadonlyArray<number>, "end">()
  const starts = yield* Ref.make(0)
  const source = Stream.fromEffect(Ref.update(starts, (n) => n + 1)).pipe(
    Stream.drain,
    Stream.concat(
      Stream.fromQueue(chunks).pipe(
        Stream.catch(() => Stream.empty),
        Stream.flatMap((chunk) => Stream.fromArray(chunk))
      )
    )
  )
  return { chunks, starts, source }
})

describe("shareWithReplay", () => {
  it.live("runs the source once; a late subscriber gets the last `replay` items, then each new one once", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { chunks, starts, source } = yield* controlledSource
        const shared = yield* shareWithReplay(source, { replay: 3, capacity: 4 })
        const early = yield* Queue.unbounded<number>()
        yield* Effect.forkChild(Stream.runForEach(shared, (n) => Queue.offer(early, n)))
        // Its first item proves it has subscribed (a subscriber joining later would get it replayed all the same).
        yield* Queue.offer(chunks, [1])
        assert.deepStrictEqual(yield* Queue.takeN(early, 1), [1])
        yield* Queue.offer(chunks, [2, 3, 4, 5])
        assert.deepStrictEqual(yield* Queue.takeN(early, 4), [2, 3, 4, 5])
        const late = yield* Queue.unbounded<number>()
        yield* Effect.forkChild(Stream.runForEach(shared, (n) => Queue.offer(late, n)))
        assert.deepStrictEqual(yield* Queue.takeN(late, 3), [3, 4, 5], "the last three, replayed")
        yield* Queue.offer(chunks, [6, 7])
        assert.deepStrictEqual(yield* Queue.takeN(early, 2), [6, 7])
        assert.deepStrictEqual(yield* Queue.takeN(late, 2), [6, 7], "then the new ones, each once")
        assert.strictEqual(yield* Ref.get(starts), 1)
      })
    )
  )

  it.live("keeps the source's chunks: a burst reaches a subscriber in large chunks, not one item each", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const burst = Array.from({ length: 1000 }, (_, i) => i)
        const shared = yield* shareWithReplay(Stream.fromArray(burst), { replay: 10, capacity: 4 })
        const chunks = yield* Stream.runCollect(Stream.chunks(shared))
        const sizes = [...chunks].map((chunk) => chunk.length)
        assert.strictEqual(
          sizes.reduce((a, b) => a + b, 0),
          1000
        )
        assert.isAtMost(sizes.length, 10, `chunk sizes ${sizes.join(",")}`)
      })
    )
  )

  it.live("a failure reaches every subscriber, and one that joins after it gets the replay and the failure", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const shared = yield* shareWithReplay(Stream.concat(Stream.fromArray([1, 2]), Stream.fail("boom")), {
          replay: 5,
          capacity: 4
        })
        const result = yield* Effect.flip(Stream.runCollect(shared))
        assert.strictEqual(result, "boom")
        const items: Array<number> = []
        const late = yield* Effect.flip(Stream.runForEach(shared, (n) => Effect.sync(() => items.push(n))))
        assert.strictEqual(late, "boom")
        assert.deepStrictEqual(items, [1, 2])
      })
    )
  )
})
