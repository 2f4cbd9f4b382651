import { assert, describe, it } from "@effect/vitest"
import { Data, Effect, Fiber, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { makeSharedPolls, unreachableAfterMs } from "../../src/hypervisor/SharedPolls.js"

/** A failure that may pass (a 5xx, no answer). */
class Hiccup extends Data.TaggedError("Hiccup")<{ readonly poll: number }> {}
/** A failure that will not (the node gone, a privilege revoked). */
class Gone extends Data.TaggedError("Gone")<{ readonly poll: number }> {}

type Failure = Hiccup | Gone

/** An upstream whose answer the test sets: each poll is numbered, and answers that number or fails with it. */
const upstream = () => {
  let polls = 0
  const state = { failWith: undefined as ((poll: number) => Failure) | undefined }
  const poll = (_key: string): Effect.Effect<number, Failure> =>
    Effect.suspend(() => {
      polls += 1
      return state.failWith === undefined ? Effect.succeed(polls) : Effect.fail(state.failWith(polls))
    })
  return { poll, state, polls: () => polls }
}

const isTransient = (error: Failure) => error instanceof Hiccup

// Watchers of one key, each forwarding what it gets to its own queue.
const watch = (stream: Stream.Stream<number, Failure>) =>
  Effect.gen(function* () {
    const frames = yield* Queue.unbounded<number>()
    const fiber = yield* Effect.forkChild(Stream.runForEach(stream, (n) => Queue.offer(frames, n)))
    return { frames, fiber }
  })

const second = TestClock.adjust("1 second")

describe("shared polls through failures", () => {
  it.effect("a transient failure sends nothing for its tick; the watchers stay and get the next value", () =>
    Effect.gen(function* () {
      const { poll, state, polls } = upstream()
      const watched = yield* makeSharedPolls(poll, { intervalMs: 1000, isTransient })
      const watchers = [yield* watch(watched("pve1")), yield* watch(watched("pve1"))]
      for (const w of watchers) assert.strictEqual(yield* Queue.take(w.frames), 1)
      state.failWith = (n) => new Hiccup({ poll: n })
      for (let i = 0; i < 3; i++) yield* second
      assert.strictEqual(polls(), 4, "one poll a second, failed or not")
      for (const w of watchers) {
        assert.strictEqual(yield* Queue.size(w.frames), 0, "nothing for a failed tick")
        assert.isUndefined(w.fiber.pollUnsafe(), "the stream is still open")
      }
      state.failWith = undefined
      yield* second
      for (const w of watchers) assert.deepStrictEqual(yield* Queue.clear(w.frames), [5], "frames resume")
    }).pipe(Effect.scoped)
  )

  it.effect("a failure that will not pass ends every watcher's stream at once with it", () =>
    Effect.gen(function* () {
      const { poll, state } = upstream()
      const watched = yield* makeSharedPolls(poll, { intervalMs: 1000, isTransient })
      const watchers = [yield* watch(watched("pve1")), yield* watch(watched("pve1"))]
      for (const w of watchers) yield* Queue.take(w.frames)
      state.failWith = (n) => new Gone({ poll: n })
      yield* second
      for (const w of watchers) assert.deepStrictEqual(yield* Effect.flip(Fiber.join(w.fiber)), new Gone({ poll: 2 }))
    }).pipe(Effect.scoped)
  )

  it.effect(`transient failures for ${unreachableAfterMs / 1000} s end the stream with the last one`, () =>
    Effect.gen(function* () {
      const { poll, state, polls } = upstream()
      const watched = yield* makeSharedPolls(poll, { intervalMs: 1000, isTransient })
      const w = yield* watch(watched("pve1"))
      yield* Queue.take(w.frames)
      // Failing from the poll at 1 s on; a success at 21 s starts the count again.
      state.failWith = (n) => new Hiccup({ poll: n })
      for (let t = 1; t <= 20; t++) yield* second
      state.failWith = undefined
      yield* second
      assert.deepStrictEqual(yield* Queue.clear(w.frames), [22], "open after 20 s of failures, and counting again")
      state.failWith = (n) => new Hiccup({ poll: n })
      // First failure at 22 s: at 51 s the failures have lasted 29 s, at 52 s 30 s.
      for (let t = 22; t <= 51; t++) yield* second
      assert.isUndefined(w.fiber.pollUnsafe(), "open after 29 s of failures")
      yield* second
      assert.strictEqual(polls(), 53)
      assert.isDefined(w.fiber.pollUnsafe(), "ended once the failures have lasted 30 s")
      assert.deepStrictEqual(yield* Effect.flip(Fiber.join(w.fiber)), new Hiccup({ poll: 53 }))
    }).pipe(Effect.scoped)
  )
})
