import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Semaphore from "effect/Semaphore"
import type { AcmeCertificate, makeAcmeCertificates } from "./AcmeCertificates.js"

type Acme = Effect.Success<ReturnType<typeof makeAcmeCertificates>>

// Never sleep longer than this before looking again: a laptop that slept or a clock that jumped is noticed within a
// day, and no timer has to span the 60 days until a renewal.
const maxSleepMs = 24 * 3_600_000

/**
 * Renews each ACME certificate when it is due (see `RenewalPolicy`): at start for one never obtained or expired,
 * before expiry, after a failure once its back-off has passed. One renewal at a time: it waits for the lock a manual
 * renewal holds, then checks again whether the certificate is still due. Sleeps on `Clock` until the next due time
 * or until `wake` (a manual renewal changed the schedule). Runs until interrupted.
 */
export const runRenewalScheduler = (acme: Acme, lock: Semaphore.Semaphore, wake: Queue.Dequeue<void>) =>
  Effect.gen(function* () {
    const isDue = (entry: AcmeCertificate) =>
      Effect.map(Clock.currentTimeMillis, (now) => acme.nextAttempt(entry) <= now)
    for (;;) {
      // Wakes from before this look are answered by it.
      yield* Queue.clear(wake)
      for (const entry of acme.entries) {
        if (!(yield* isDue(entry))) continue
        yield* lock
          .withPermits(1)(
            Effect.gen(function* () {
              if (yield* isDue(entry)) yield* Effect.ignore(acme.renew(entry, "scheduled", () => Effect.void))
            })
          )
          .pipe(
            // A failure is recorded (and backs off) by `renew`; a defect is not, so pause instead of spinning on it.
            Effect.catchCause((cause) =>
              Effect.andThen(Effect.logError("certificate renewal crashed", cause), Effect.sleep(Duration.minutes(1)))
            )
          )
      }
      if (acme.entries.length === 0) return
      const now = yield* Clock.currentTimeMillis
      const next = Math.min(...acme.entries.map(acme.nextAttempt))
      if (next <= now) continue
      // A time that is not one (a bug) is looked at again in a day: `Effect.sleep(NaN)` returns at once, a busy loop.
      const wait = Number.isFinite(next) ? Math.min(next - now, maxSleepMs) : maxSleepMs
      yield* Effect.raceFirst(Effect.sleep(Duration.millis(wait)), Queue.take(wake))
    }
  }).pipe(Effect.withSpan("Certificates.scheduler"))
