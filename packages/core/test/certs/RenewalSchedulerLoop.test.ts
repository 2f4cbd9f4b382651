import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Queue, Semaphore } from "effect"
import * as Duration from "effect/Duration"
import { waitFor } from "../../../../test/support/WaitFor.js"
import type { AcmeCertificate } from "../../src/certs/AcmeCertificates.js"
import { runRenewalScheduler } from "../../src/certs/RenewalScheduler.js"

// The scheduler's loop on a clock that records each sleep: a next attempt that is not a time must never become a
// sleep that returns at once (`Effect.sleep(NaN)` does, on the real clock), which would spin the CPU forever.

type Acme = Parameters<typeof runRenewalScheduler>[0]

const day = 86_400_000
const now = 1_800_000_000_000

/** A clock at `now` whose sleeps are recorded: a sleep that is not a positive time returns at once, as the real one. */
const recordingClock = (sleeps: Array<number>): Clock.Clock => ({
  currentTimeMillisUnsafe: () => now,
  currentTimeMillis: Effect.succeed(now),
  currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(now) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
  monotonicTimeNanos: Effect.succeed(BigInt(now) * 1_000_000n),
  sleep: (duration: Duration.Duration) =>
    Effect.suspend(() => {
      const millis = Duration.toMillis(duration)
      sleeps.push(millis)
      return millis > 0 && Number.isFinite(millis) ? Effect.never : Effect.void
    })
})

describe("renewal scheduler loop", () => {
  it.live("a next attempt that is not a time: one sleep of a day, no spinning, nothing renewed", () =>
    Effect.gen(function* () {
      const sleeps: Array<number> = []
      let renewals = 0
      const entry = { config: { name: "web", domains: ["a.test"], challenge: "http-01" } } as unknown as AcmeCertificate
      const acme = {
        entries: [entry],
        nextAttempt: () => Number.NaN,
        renew: () => Effect.sync(() => renewals++).pipe(Effect.andThen(Effect.die("not due")))
      } as unknown as Acme
      const scheduler = yield* runRenewalScheduler(acme, yield* Semaphore.make(1), yield* Queue.sliding<void>(1)).pipe(
        Effect.provideService(Clock.Clock, recordingClock(sleeps)),
        Effect.forkChild
      )
      yield* waitFor(
        Effect.sync(() => sleeps.length),
        (n) => n > 0,
        "the scheduler's sleep"
      )
      // A spinning loop would have slept again meanwhile.
      for (let i = 0; i < 50; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(sleeps, [day])
      assert.strictEqual(renewals, 0)
      yield* Fiber.interrupt(scheduler)
    })
  )
})
