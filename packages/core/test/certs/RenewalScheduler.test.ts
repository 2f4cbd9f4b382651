import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { CertRenewFrame } from "@gatehouse-edge/contract/domain"
import { AcmeUnreachable, RenewalInProgress } from "@gatehouse-edge/contract/domain"
import { Clock, Deferred, Effect, Exit, Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import type { Issuer } from "../../src/certs/AcmeCertificates.js"
import { validityOf } from "../../src/certs/CertInfoOf.js"
import { type CertificatePair, parseCertificatePair } from "../../src/certs/CertificatePair.js"
import * as CertificatesLive from "../../src/certs/CertificatesLive.js"
import { renewAt } from "../../src/certs/RenewalPolicy.js"
import { Events } from "../../src/events/Events.js"
import { busIn } from "../events/TestBus.js"
import { makeCert, oneCertificateAcme } from "./CertFixtures.js"

// The renewal schedule of ACME certificates on the TestClock, with a stand-in for the ACME client (the real one is
// tested against pebble in test/certs): when it tries, how failures back off, what survives a restart, and that one
// renewal runs at a time.

const openssl = requireTool("openssl")
const minute = 60_000
const day = 86_400_000

type Step = "ok" | "fail" | "hang"

/** An issuer that follows `plan` (then succeeds) and records the clock time of each call. */
const plannedIssuer = (pairs: ReadonlyArray<CertificatePair>, plan: ReadonlyArray<Step>) => {
  const calls: Array<number> = []
  let issued = 0
  const issue: Issuer = (options) =>
    Effect.gen(function* () {
      calls.push(yield* Clock.currentTimeMillis)
      const step = plan[calls.length - 1] ?? "ok"
      yield* options.progress({ progress: "order placed", step: "order_placed", certificate: options.certificate.name })
      if (step === "fail") return yield* new AcmeUnreachable({ directory: options.directory, detail: "ECONNREFUSED" })
      if (step === "hang") return yield* Effect.never
      return pairs[issued++ % pairs.length]!
    })
  return { issue, calls }
}

const world = Effect.gen(function* () {
  const dir = yield* tempDir("gatehouse-renewal-")
  const { bus } = yield* busIn(dir)
  const dataDir = path.join(dir, "data")
  // Each a month longer than the one before, as each renewal's certificate expires later.
  const pairs = yield* Effect.forEach(["one", "two", "three"], (name, i) =>
    Effect.flatMap(
      Effect.sync(() => makeCert(dir, name, { san: "DNS:a.test", days: 90 + 30 * i })),
      (f) => parseCertificatePair(f.certPem, f.keyPem)
    )
  )
  const start = (issue: Issuer) =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const service = yield* CertificatesLive.make({
        certificates: [],
        acme: oneCertificateAcme(),
        dataDir,
        issue
      }).pipe(Effect.provideService(Events, bus), Scope.provide(scope))
      return { service, stop: Scope.close(scope, Exit.void) }
    })
  const certEvents = Effect.map(bus.history({ category: "cert" }), (events) => events.map((e) => e.action))
  return { pairs, start, bus, certEvents, dataDir }
})

const iso = (ms: number) => new Date(ms).toISOString()

describe.skipIf(openssl.skip)("ACME renewal schedule", () => {
  it.effect("obtains at start, backs off 5 then 10 minutes after failures, then waits for the renewal window", () =>
    Effect.gen(function* () {
      const { pairs, start, certEvents } = yield* world
      const { notBefore, notAfter } = validityOf(pairs[0]!.leaf)
      const t0 = notBefore + 3_600_000
      yield* TestClock.setTime(t0)
      const issuer = plannedIssuer(pairs, ["fail", "fail", "ok"])
      const first = yield* start(issuer.issue)

      yield* waitFor(certEvents, (actions) => actions.length === 1, "the first failure")
      assert.deepStrictEqual(issuer.calls, [t0])
      yield* TestClock.adjust(5 * minute)
      yield* waitFor(certEvents, (actions) => actions.length === 2, "the second failure")
      assert.deepStrictEqual(issuer.calls, [t0, t0 + 5 * minute])
      yield* TestClock.adjust(10 * minute)
      yield* waitFor(certEvents, (actions) => actions.length === 3, "the success")
      assert.deepStrictEqual(issuer.calls, [t0, t0 + 5 * minute, t0 + 15 * minute])
      assert.deepStrictEqual(yield* certEvents, ["renew_failed", "renew_failed", "renewed"])

      const [info] = yield* first.service.info
      assert.strictEqual(info!.provider, "acme")
      assert.strictEqual(info!.serial, pairs[0]!.leaf.serialNumber.toUpperCase())
      assert.deepStrictEqual(info!.renewal, {
        next_at: iso(renewAt(notBefore, notAfter, 30 * day)),
        last_attempt_at: iso(t0 + 15 * minute),
        last_error: null
      })

      // A restart serves the stored certificate at once and keeps the schedule: the next call is at the window.
      yield* first.stop
      const second = yield* start(issuer.issue)
      const [again] = yield* second.service.info
      assert.strictEqual(again!.serial, info!.serial)
      assert.deepStrictEqual(again!.renewal, info!.renewal)
      yield* TestClock.setTime(renewAt(notBefore, notAfter, 30 * day))
      yield* waitFor(certEvents, (actions) => actions.length === 4, "the renewal in the window")
      assert.strictEqual(issuer.calls[3], renewAt(notBefore, notAfter, 30 * day))
      const [renewed] = yield* second.service.info
      assert.strictEqual(renewed!.serial, pairs[1]!.leaf.serialNumber.toUpperCase())
      yield* second.stop
    })
  )

  it.effect("a failure's error and back-off survive a restart", () =>
    Effect.gen(function* () {
      const { pairs, start, certEvents, bus } = yield* world
      const t0 = validityOf(pairs[0]!.leaf).notBefore
      yield* TestClock.setTime(t0)
      const failing = plannedIssuer(pairs, ["fail"])
      const first = yield* start(failing.issue)
      yield* waitFor(certEvents, (actions) => actions.length === 1, "the failure")
      const [failed] = yield* bus.history({ category: "cert" })
      assert.deepInclude(failed!.data, {
        name: "web",
        code: "bad_gateway",
        error: "ACME server https://127.0.0.1:9/dir is unreachable: ECONNREFUSED",
        next_attempt_at: iso(t0 + 5 * minute),
        trigger: "scheduled"
      })
      yield* first.stop

      // Restarted a minute later: no certificate yet, and the back-off of the failure before the restart holds.
      yield* TestClock.adjust(minute)
      const later = plannedIssuer(pairs, ["ok"])
      const second = yield* start(later.issue)
      yield* TestClock.adjust(4 * minute)
      yield* waitFor(certEvents, (actions) => actions.length === 2, "the retry")
      assert.deepStrictEqual(later.calls, [t0 + 5 * minute])
      yield* second.stop
    })
  )

  it.effect(
    "an expired stored certificate is listed with negative days_left and renewed at once; one renewal at a time (409)",
    () =>
      Effect.gen(function* () {
        const { pairs, start, certEvents } = yield* world
        const { notBefore, notAfter } = validityOf(pairs[0]!.leaf)
        yield* TestClock.setTime(notBefore)
        const first = yield* start(plannedIssuer(pairs, ["ok"]).issue)
        yield* waitFor(certEvents, (actions) => actions.length === 1, "the certificate")
        yield* first.stop

        const now = notAfter + 2 * day + minute
        yield* TestClock.setTime(now)
        const hanging = plannedIssuer(pairs, ["hang"])
        const second = yield* start(hanging.issue)
        const [expired] = yield* second.service.info
        assert.strictEqual(expired!.days_left, -3)
        assert.isTrue(expired!.expiring_soon)
        assert.isAtMost(Date.parse(expired!.renewal!.next_at), now, "renewal is due now")
        yield* waitFor(
          Effect.sync(() => hanging.calls.length),
          (n) => n === 1,
          "the scheduled renewal"
        )
        assert.deepStrictEqual(hanging.calls, [now])
        // The scheduled renewal holds the lock: a manual one is refused, with or without progress.
        assert.instanceOf(yield* Effect.flip(second.service.renew()), RenewalInProgress)
        assert.instanceOf(yield* Effect.flip(second.service.renewWithProgress("web")), RenewalInProgress)
        yield* second.stop
      })
  )

  // A disk that refuses the new certificate must back off like any failure: retried every minute, each attempt
  // would order (and throw away) a certificate until the CA's duplicate-certificate limit locks the account out.
  it.effect("a certificate whose directory cannot be made is a recorded failure that backs off", () =>
    Effect.gen(function* () {
      const { pairs, start, certEvents, bus, dataDir } = yield* world
      const t0 = validityOf(pairs[0]!.leaf).notBefore
      yield* TestClock.setTime(t0)
      const ordered = yield* Deferred.make<void>()
      const calls: Array<number> = []
      const issue: Issuer = () =>
        Effect.gen(function* () {
          calls.push(yield* Clock.currentTimeMillis)
          yield* Deferred.await(ordered)
          return pairs[0]!
        })
      const running = yield* start(issue)
      yield* waitFor(
        Effect.sync(() => calls.length),
        (n) => n === 1,
        "the first order"
      )
      // A regular file where the certificates' directory must go: mkdir fails even for root.
      yield* Effect.sync(() => fs.writeFileSync(path.join(dataDir, "acme", "certificates"), ""))
      yield* Deferred.succeed(ordered, undefined)

      yield* waitFor(certEvents, (actions) => actions.length === 1, "the recorded failure")
      const [failed] = yield* bus.history({ category: "cert" })
      assert.deepInclude(failed!.data, { name: "web", code: "bad_gateway", next_attempt_at: iso(t0 + 5 * minute) })
      assert.include((failed!.data as { error: string }).error, "the new certificate could not be stored")

      // Not again a minute later (the pause after a crash), but after the 5-minute back-off, then 10 minutes.
      yield* TestClock.adjust(minute)
      yield* TestClock.adjust(4 * minute)
      yield* waitFor(certEvents, (actions) => actions.length === 2, "the second failure")
      assert.deepStrictEqual(calls, [t0, t0 + 5 * minute])
      const [, again] = yield* bus.history({ category: "cert" })
      assert.deepInclude(again!.data, { next_attempt_at: iso(t0 + 15 * minute) })
      yield* running.stop
    })
  )

  it.effect("a manual renewal streams progress, then the result with the new certificate", () =>
    Effect.gen(function* () {
      const { pairs, start, certEvents } = yield* world
      yield* TestClock.setTime(validityOf(pairs[0]!.leaf).notBefore)
      const issuer = plannedIssuer(pairs, ["ok", "ok"])
      const running = yield* start(issuer.issue)
      yield* waitFor(certEvents, (actions) => actions.length === 1, "the certificate")
      const frames = yield* Stream.runCollect(yield* running.service.renewWithProgress())
      const expected: ReadonlyArray<CertRenewFrame> = [
        { progress: "order placed", step: "order_placed", certificate: "web" },
        { progress: "certificate web installed", step: "installed", certificate: "web" }
      ]
      assert.deepStrictEqual(frames.slice(0, 2), expected)
      const result = frames[2] as Extract<CertRenewFrame, { ok: boolean }>
      assert.isTrue(result.ok)
      assert.strictEqual(result.certs![0]!.serial, pairs[1]!.leaf.serialNumber.toUpperCase())
      assert.strictEqual(frames.length, 3)
      const events = yield* certEvents
      assert.deepStrictEqual(events, ["renewed", "renewed"])
      yield* running.stop
    })
  )
})
