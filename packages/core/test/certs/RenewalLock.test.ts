import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AcmeUnreachable, RenewalInProgress } from "@gatehouse-edge/contract/domain"
import { Effect, Exit, Fiber, Scheduler, Scope } from "effect"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import type { Issuer } from "../../src/certs/AcmeCertificates.js"
import * as CertificatesLive from "../../src/certs/CertificatesLive.js"
import { Events } from "../../src/events/Events.js"
import { busIn } from "../events/TestBus.js"
import { oneCertificateAcme } from "./CertFixtures.js"

// The renewal lock (one renewal at a time) must come back whenever a caller is interrupted: a client that goes away
// at the wrong moment must not leave every later renewal refused with 409 until a restart.

/** An issuer whose every attempt fails at once (no certificate to make; a renewal that ran is told from a refused one). */
const unreachable = () => {
  let calls = 0
  const issue: Issuer = (options) =>
    Effect.suspend(() => {
      calls++
      return Effect.fail(new AcmeUnreachable({ directory: options.directory, detail: "ECONNREFUSED" }))
    })
  return { issue, calls: () => calls }
}

// Steps of the interrupted call tried: from before the lock is taken to well after the renewal is forked.
const steps = 120

describe("the renewal lock", () => {
  it.effect("comes back when the caller is interrupted at any step of starting a renewal", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-renewal-lock-")
      const { bus } = yield* busIn(dir)
      const scope = yield* Scope.make()
      const issuer = unreachable()
      const service = yield* CertificatesLive.make({
        certificates: [],
        acme: oneCertificateAcme(),
        dataDir: path.join(dir, "data"),
        issue: issuer.issue
      }).pipe(Effect.provideService(Events, bus), Scope.provide(scope))
      const failures = Effect.map(bus.history({ category: "cert" }), (events) => events.length)
      // The scheduler's attempt at start (then it backs off on the TestClock, which stays put).
      yield* waitFor(failures, (n) => n === 1, "the scheduled attempt")

      // Whether the interrupted caller had started its renewal, step by step: the sweep must cover both sides.
      const started: Array<boolean> = []
      for (let step = 0; step < steps; step++) {
        const callsBefore = issuer.calls()
        // With a budget of 3 the caller yields to the scheduler after each operation (resuming spends two), so this
        // fiber, yielding once per turn, interrupts it one operation further at each step.
        const caller = yield* Effect.forkChild(
          service.renew("web").pipe(Effect.provideService(Scheduler.MaxOpsBeforeYield, 3))
        )
        for (let i = 0; i < step; i++) yield* Effect.yieldNow
        yield* Fiber.interrupt(caller)
        // A renewal that did start ends at once (its issuer fails); then the lock is free again.
        const next = yield* waitFor(
          Effect.flip(service.renew("web")),
          (error) => !(error instanceof RenewalInProgress),
          `the lock after an interruption at step ${step}`,
          3_000
        )
        assert.instanceOf(next, AcmeUnreachable, `after an interruption at step ${step}`)
        started.push(issuer.calls() - callsBefore === 2)
      }
      assert.isFalse(started[0], "interrupted before it began, the caller started no renewal")
      assert.isTrue(started.at(-1), "the last steps interrupt a caller whose renewal runs")
      yield* Scope.close(scope, Exit.void)
    })
  )
})
