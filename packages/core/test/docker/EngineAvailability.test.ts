import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Logger } from "effect"
import { TestClock } from "effect/testing"
import { makeEngineAvailability } from "../../src/docker/EngineAvailability.js"
import { EngineTimeout } from "../../src/docker/EngineFailure.js"
import { eventually } from "../events/TestBus.js"

// The state of one engine as its calls and its probe learn it, with a ping the test scripts (when it pings, and
// whether the engine answers it); the clock is the TestClock, so the back-off is exact. DockerStuckEngine.test.ts
// runs the same against a real dockerd and a socket that never answers.

const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:2375"), { code: "ECONNREFUSED" })

/** An availability whose pings are recorded (at their time) and answered while `engine.answers`. */
const scripted = Effect.gen(function* () {
  const engine = { answers: false, failure: refused as unknown, pings: [] as Array<number> }
  const availability = makeEngineAvailability({
    host: "nas",
    ping: Effect.flatMap(Clock.currentTimeMillis, (at) => {
      engine.pings.push(at)
      return engine.answers ? Effect.void : Effect.fail(engine.failure)
    }),
    driverText: String,
    scope: yield* Effect.scope
  })
  /** Moves the clock to `at` and lets the probe run there. */
  const at = (millis: number) =>
    Effect.gen(function* () {
      yield* TestClock.adjust(millis - (yield* Clock.currentTimeMillis))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow
    })
  return { engine, availability, at }
})

describe("whether an engine answers", () => {
  it.effect("down: one probe pings on a back-off of 0.5 s doubling, until the engine answers; then it is up", () =>
    Effect.gen(function* () {
      const { engine, availability, at } = yield* scripted
      assert.isUndefined(availability.down())
      const first = yield* availability.noAnswer(refused)
      assert.strictEqual(first.message, 'Docker host "nas" is unreachable: connection refused')
      assert.strictEqual(availability.down(), first)
      const back = yield* Effect.forkChild(availability.whenUp)
      // Another call that failed while the probe waits: the same error, and no second probe.
      yield* at(100)
      assert.strictEqual(yield* availability.noAnswer(refused), first)
      yield* at(20_000)
      // 0.5 s, then (two calls and a ping failed) 2 s, 4 s, 8 s.
      assert.deepStrictEqual(engine.pings, [500, 2_500, 6_500, 14_500])
      assert.isUndefined(back.pollUnsafe(), "still down")
      engine.answers = true
      yield* at(30_500)
      assert.deepStrictEqual(engine.pings, [500, 2_500, 6_500, 14_500, 30_500])
      assert.isUndefined(availability.down())
      yield* Fiber.join(back)
      yield* at(120_000)
      assert.strictEqual(engine.pings.length, 5, "an engine that answers is not pinged")
    }).pipe(Effect.scoped)
  )

  it.effect(
    "only an answered call starts the back-off over: an engine whose ping answers but calls hang backs off",
    () =>
      Effect.gen(function* () {
        const { engine, availability, at } = yield* scripted
        engine.answers = true
        yield* availability.noAnswer(refused)
        yield* at(500)
        assert.isUndefined(availability.down(), "the ping answered")
        // A call hangs again: its back-off goes on from where it was (1 s), not from 0.5 s.
        yield* availability.noAnswer(refused)
        yield* at(1_400)
        assert.deepStrictEqual(engine.pings, [500])
        yield* at(1_500)
        assert.deepStrictEqual(engine.pings, [500, 1_500])
        // A call answered: the next outage is probed after 0.5 s again.
        yield* availability.answered
        yield* availability.noAnswer(refused)
        yield* at(2_000)
        assert.deepStrictEqual(engine.pings, [500, 1_500, 2_000])
      }).pipe(Effect.scoped)
  )

  it.effect("the error stays word for word while the kind of failure does; a new kind replaces it", () =>
    Effect.gen(function* () {
      const { engine, availability, at } = yield* scripted
      const timedOut = yield* availability.noAnswer(new EngineTimeout({ message: "no answer within 30 s" }))
      assert.strictEqual(timedOut.detail, "timed out: no answer within 30 s")
      // The probe's own timeout is shorter: still the same problem, so the same text (no new route problem).
      engine.failure = new EngineTimeout({ message: "no answer within 5 s" })
      yield* at(500)
      assert.strictEqual(engine.pings.length, 1)
      assert.strictEqual(availability.down(), timedOut)
      engine.failure = refused
      yield* at(1_500)
      assert.strictEqual(engine.pings.length, 2)
      assert.strictEqual(availability.down()?.detail, "connection refused")
    }).pipe(Effect.scoped)
  )

  it.effect("whenUp completes at once while the engine answers, and when it answers again", () =>
    Effect.gen(function* () {
      const { engine, availability, at } = yield* scripted
      yield* availability.whenUp
      yield* availability.noAnswer(refused)
      const waiting = yield* Effect.forkChild(availability.whenUp)
      yield* eventually(
        "the waiter to wait",
        Effect.sync(() => waiting.pollUnsafe() === undefined)
      )
      engine.answers = true
      yield* at(500)
      yield* Fiber.join(waiting)
    }).pipe(Effect.scoped)
  )

  it.effect("an outage is logged as it starts and as it ends (by the probe or by a call), once each", () => {
    const logged: Array<string> = []
    return Effect.gen(function* () {
      const { engine, availability, at } = yield* scripted
      yield* availability.answered
      assert.deepStrictEqual(logged, [], "an engine that was never down is not announced")
      yield* availability.noAnswer(refused)
      yield* at(10_000)
      assert.strictEqual(engine.pings.length, 4, "pinged again and again meanwhile")
      engine.answers = true
      yield* at(20_000)
      assert.isUndefined(availability.down(), "the probe heard from it")
      yield* availability.answered
      yield* at(60_000)
      assert.deepStrictEqual(logged, [
        'Warn Docker host "nas" is unreachable: connection refused (Error: connect ECONNREFUSED 127.0.0.1:2375)',
        'Info Docker host "nas" answers again'
      ])

      // Down again, and this time a call is answered before the probe pings.
      yield* availability.noAnswer(refused)
      yield* availability.answered
      yield* availability.answered
      assert.deepStrictEqual(
        logged.slice(2).map((line) => line.split(" ")[0]),
        ["Warn", "Info"]
      )
    }).pipe(
      Effect.scoped,
      Effect.provide(Logger.layer([Logger.make(({ logLevel, message }) => logged.push(`${logLevel} ${message}`))]))
    )
  })
})
