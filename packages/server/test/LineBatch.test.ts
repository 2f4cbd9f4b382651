import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Exit, Logger, Scope } from "effect"
import { TestClock } from "effect/testing"
import { batchLines } from "../src/LineBatch.js"

/**
 * A batch of `Effect.log` messages, flushed into `flushes`, built in `scope` on the test's clock with every sleep
 * counted: the point of the batch is that it sleeps only while a line waits.
 */
const harness = Effect.gen(function* () {
  const scope = yield* Scope.make()
  const flushes: Array<{ at: number; lines: Array<string> }> = []
  let sleeps = 0
  const testClock = yield* Effect.clockWith(Effect.succeed)
  const counting: Clock.Clock = {
    ...testClock,
    currentTimeMillisUnsafe: () => testClock.currentTimeMillisUnsafe(),
    currentTimeNanosUnsafe: () => testClock.currentTimeNanosUnsafe(),
    sleep: (duration) => {
      sleeps++
      return testClock.sleep(duration)
    }
  }
  const message = Logger.make((options) => String(options.message))
  const batch = yield* batchLines(message, {
    window: "50 millis",
    flush: (lines) =>
      Effect.map(Clock.currentTimeMillis, (at) => {
        flushes.push({ at, lines })
      })
  }).pipe(Scope.provide(scope), Effect.provideService(Clock.Clock, counting))
  const log = (text: string) => Effect.logInfo(text).pipe(Effect.provide(Logger.layer([batch])))
  return { scope, flushes, log, sleeps: () => sleeps }
})

describe("batchLines", () => {
  it.effect("sleeps no timer while no line waits (effect's Logger.batched wakes every window)", () =>
    Effect.gen(function* () {
      const h = yield* harness
      yield* TestClock.adjust("1 second")
      assert.strictEqual(h.sleeps(), 0)
      assert.deepStrictEqual(h.flushes, [])

      yield* h.log("one")
      yield* TestClock.adjust("50 millis")
      assert.deepStrictEqual(h.flushes, [{ at: 1050, lines: ["one"] }])
      yield* TestClock.adjust("1 second")
      assert.strictEqual(h.sleeps(), 1)
      yield* Scope.close(h.scope, Exit.void)
    })
  )

  it.effect("hands the lines of one window to one flush, a window after the first of them", () =>
    Effect.gen(function* () {
      const h = yield* harness
      yield* TestClock.adjust("30 millis")
      yield* h.log("a")
      yield* TestClock.adjust("40 millis")
      yield* h.log("b")
      // 70 ms: the window opened at 30 ms has not ended.
      assert.deepStrictEqual(h.flushes, [])
      yield* TestClock.adjust("10 millis")
      assert.deepStrictEqual(h.flushes, [{ at: 80, lines: ["a", "b"] }])

      yield* h.log("c")
      yield* TestClock.adjust("49 millis")
      assert.strictEqual(h.flushes.length, 1)
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(h.flushes[1], { at: 130, lines: ["c"] })
      yield* Scope.close(h.scope, Exit.void)
    })
  )

  it.effect("writes what still waits when its scope closes, without waiting for the window", () =>
    Effect.gen(function* () {
      const h = yield* harness
      yield* h.log("last words")
      yield* TestClock.adjust("10 millis")
      yield* Scope.close(h.scope, Exit.void)
      assert.deepStrictEqual(h.flushes, [{ at: 10, lines: ["last words"] }])
      // Closed: nothing is flushed twice, and no timer is left behind.
      yield* TestClock.adjust("1 second")
      assert.strictEqual(h.flushes.length, 1)
    })
  )
})
