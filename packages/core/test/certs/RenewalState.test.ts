import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AcmeUnreachable } from "@gatehouse-edge/contract/domain"
import { Clock, Deferred, Effect, Exit, Logger, Scope } from "effect"
import { TestClock } from "effect/testing"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import type { Issuer } from "../../src/certs/AcmeCertificates.js"
import { makeAcmeStore } from "../../src/certs/AcmeStore.js"
import { validityOf } from "../../src/certs/CertInfoOf.js"
import { parseCertificatePair } from "../../src/certs/CertificatePair.js"
import * as CertificatesLive from "../../src/certs/CertificatesLive.js"
import { renewAt } from "../../src/certs/RenewalPolicy.js"
import { Events } from "../../src/events/Events.js"
import { busIn } from "../events/TestBus.js"
import { makeCert, oneCertificateAcme } from "./CertFixtures.js"

// What the renewal state in the data dir (`state.json`) decides at a start: a certificate from another ACME directory
// than configured now is renewed at once, a state from before the directory was recorded is kept (and completed),
// and a state that cannot be read is logged and ignored. TestClock, a stand-in issuer (as in RenewalScheduler.test).

const openssl = requireTool("openssl")
const minute = 60_000
const day = 86_400_000
const staging = "https://acme-staging.test/directory"
const production = "https://acme.test/directory"

const world = Effect.gen(function* () {
  const dir = yield* tempDir("gatehouse-renewal-state-")
  const { bus } = yield* busIn(dir)
  const dataDir = path.join(dir, "data")
  const files = yield* Effect.forEach(["one", "two"], (name) =>
    Effect.sync(() => makeCert(dir, name, { san: "DNS:a.test", days: 90 }))
  )
  const pairs = yield* Effect.forEach(files, (f) => parseCertificatePair(f.certPem, f.keyPem))
  const logged: Array<string> = []
  const captureLogs = Logger.layer([Logger.make(({ message }) => logged.push(String(message)))])
  // Each call's directory and clock time; the first pair, then the second.
  const calls: Array<{ readonly directory: string; readonly at: number }> = []
  const issuer = (gate?: Deferred.Deferred<void>, fail = false): Issuer =>
    Effect.fnUntraced(function* (options) {
      calls.push({ directory: options.directory, at: yield* Clock.currentTimeMillis })
      if (gate !== undefined) yield* Deferred.await(gate)
      if (fail) return yield* new AcmeUnreachable({ directory: options.directory, detail: "ECONNREFUSED" })
      return pairs[(calls.length - 1) % pairs.length]!
    })
  const start = (directory: string, issue: Issuer) =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const service = yield* CertificatesLive.make({
        certificates: [],
        acme: oneCertificateAcme(directory),
        dataDir,
        issue
      }).pipe(Effect.provideService(Events, bus), Effect.provide(captureLogs), Scope.provide(scope))
      return { service, stop: Scope.close(scope, Exit.void) }
    })
  const renewed = Effect.map(bus.history({ category: "cert" }), (events) =>
    events.filter((e) => e.action === "renewed")
  )
  const failed = Effect.map(bus.history({ category: "cert" }), (events) =>
    events.filter((e) => e.action === "renew_failed")
  )
  const certDir = path.join(dataDir, "acme", "certificates", "web")
  const stateFile = path.join(certDir, "state.json")
  const readState = Effect.sync(() => JSON.parse(fs.readFileSync(stateFile, "utf8")))
  // A data dir as an older version left it: the certificate, and a state with what it recorded then.
  const writeStored = (state: object) =>
    Effect.sync(() => {
      fs.mkdirSync(certDir, { recursive: true })
      fs.writeFileSync(path.join(certDir, "certificate.pem"), files[0]!.keyPem + files[0]!.certPem)
      fs.writeFileSync(stateFile, JSON.stringify(state))
    })
  // The account an earlier start with `directory` made (its key and `directory.txt`, as every version wrote them).
  const writeAccount = (directory: string) => Effect.asVoid(makeAcmeStore(dataDir, directory).accountKey)
  return { pairs, calls, issuer, start, renewed, failed, readState, writeStored, writeAccount, logged }
})

const iso = (ms: number) => new Date(ms).toISOString()

describe.skipIf(openssl.skip)("ACME renewal state", () => {
  it.effect("a certificate from another directory (staging, then production) is served, and renewed at start", () =>
    Effect.gen(function* () {
      const { pairs, calls, issuer, start, renewed, readState } = yield* world
      const t0 = validityOf(pairs[0]!.leaf).notBefore + minute
      yield* TestClock.setTime(t0)
      const first = yield* start(staging, issuer())
      yield* waitFor(renewed, (events) => events.length === 1, "the staging certificate")
      assert.strictEqual((yield* readState).directory, staging)
      yield* first.stop

      // A day later, with the production directory: the staging certificate is served while one is obtained.
      yield* TestClock.adjust(day)
      const gate = yield* Deferred.make<void>()
      const second = yield* start(production, issuer(gate))
      const [served] = yield* second.service.info
      assert.strictEqual(served!.serial, pairs[0]!.leaf.serialNumber.toUpperCase())
      assert.isAtMost(Date.parse(served!.renewal!.next_at), t0 + day, "due now")
      yield* waitFor(
        Effect.sync(() => calls.length),
        (n) => n === 2,
        "the renewal from production"
      )
      assert.deepStrictEqual(calls, [
        { directory: staging, at: t0 },
        { directory: production, at: t0 + day }
      ])
      yield* Deferred.succeed(gate, undefined)
      yield* waitFor(renewed, (events) => events.length === 2, "the production certificate")
      const [replaced] = yield* second.service.info
      assert.strictEqual(replaced!.serial, pairs[1]!.leaf.serialNumber.toUpperCase())
      const next = validityOf(pairs[1]!.leaf)
      assert.strictEqual(replaced!.renewal!.next_at, iso(renewAt(next.notBefore, next.notAfter, 30 * day)))
      assert.strictEqual((yield* readState).directory, production)
      assert.strictEqual(calls.length, 2)
      yield* second.stop
    })
  )

  it.effect(
    "a failed renewal from the new directory keeps the old one's certificate marked as such, across a restart",
    () =>
      Effect.gen(function* () {
        const { pairs, calls, issuer, start, renewed, failed, readState } = yield* world
        const t0 = validityOf(pairs[0]!.leaf).notBefore + minute
        yield* TestClock.setTime(t0)
        const first = yield* start(staging, issuer())
        yield* waitFor(renewed, (events) => events.length === 1, "the staging certificate")
        yield* first.stop

        yield* TestClock.adjust(day)
        const failing = yield* start(production, issuer(undefined, true))
        yield* waitFor(failed, (events) => events.length === 1, "the failed renewal from production")
        yield* failing.stop
        assert.deepInclude(yield* readState, { failures: 1, directory: staging })

        // Restarted after the back-off: the staging certificate is still renewed at once.
        yield* TestClock.adjust(10 * minute)
        const again = yield* start(production, issuer())
        yield* waitFor(renewed, (events) => events.length === 2, "the production certificate")
        assert.deepStrictEqual(
          calls.map((c) => c.directory),
          [staging, production, production]
        )
        assert.strictEqual(calls[2]!.at, t0 + day + 10 * minute)
        yield* again.stop
      })
  )

  it.effect(
    "a state from before the directory was recorded still loads: the certificate counts as the directory's",
    () =>
      Effect.gen(function* () {
        const { pairs, calls, issuer, start, renewed, readState, writeStored, writeAccount, logged } = yield* world
        const { notBefore, notAfter } = validityOf(pairs[0]!.leaf)
        const lastAttempt = iso(notBefore)
        yield* writeStored({ failures: 0, last_attempt_at: lastAttempt, last_error: null })
        yield* writeAccount(production)
        yield* TestClock.setTime(notBefore + day)

        const running = yield* start(production, issuer())
        // The data dir's only account is the configured directory's: nothing to say.
        assert.isFalse(
          logged.some((line) => line.includes("has no recorded ACME directory")),
          logged.join("\n")
        )
        const [served] = yield* running.service.info
        assert.deepStrictEqual(served!.renewal, {
          next_at: iso(renewAt(notBefore, notAfter, 30 * day)),
          last_attempt_at: lastAttempt,
          last_error: null
        })
        // Completed on disk (not reset), so a later change of directory is noticed.
        assert.deepStrictEqual(yield* readState, {
          failures: 0,
          last_attempt_at: lastAttempt,
          last_error: null,
          directory: production
        })
        yield* running.stop

        const moved = yield* start(staging, issuer())
        yield* waitFor(renewed, (events) => events.length === 1, "the renewal from the new directory")
        assert.deepStrictEqual(calls, [{ directory: staging, at: notBefore + day }])
        yield* moved.stop
      })
  )

  it.effect(
    "a state from before the directory was recorded, the data dir's only account another directory's: renewed at start",
    () =>
      Effect.gen(function* () {
        const { pairs, calls, issuer, start, renewed, readState, writeStored, writeAccount, logged } = yield* world
        // Staging on an old build, then production configured there (which kept serving the staging certificate).
        const { notBefore } = validityOf(pairs[0]!.leaf)
        const lastAttempt = iso(notBefore)
        yield* writeStored({ failures: 0, last_attempt_at: lastAttempt, last_error: null })
        yield* writeAccount(staging)
        const now = notBefore + day
        yield* TestClock.setTime(now)

        const gate = yield* Deferred.make<void>()
        const running = yield* start(production, issuer(gate))
        const [served] = yield* running.service.info
        assert.strictEqual(served!.serial, pairs[0]!.leaf.serialNumber.toUpperCase())
        assert.isAtMost(Date.parse(served!.renewal!.next_at), now, "due now")
        // Recorded as staging's, so a restart before the renewal succeeds (with production's account made by now)
        // still renews it.
        assert.deepStrictEqual(yield* readState, {
          failures: 0,
          last_attempt_at: lastAttempt,
          last_error: null,
          directory: staging
        })
        assert.isTrue(
          logged.some((line) =>
            line.includes(`web has no recorded ACME directory: the data dir's only ACME account is for ${staging}`)
          ),
          logged.join("\n")
        )
        yield* waitFor(
          Effect.sync(() => calls.length),
          (n) => n === 1,
          "the renewal from production"
        )
        assert.deepStrictEqual(calls, [{ directory: production, at: now }])
        yield* Deferred.succeed(gate, undefined)
        yield* waitFor(renewed, (events) => events.length === 1, "the production certificate")
        assert.strictEqual((yield* readState).directory, production)
        yield* running.stop
      })
  )

  it.effect(
    "a state from before the directory was recorded, accounts that do not tell: the configured directory's, logged",
    () =>
      Effect.gen(function* () {
        for (const accounts of [[], [staging, production]]) {
          const { pairs, calls, issuer, start, readState, writeStored, writeAccount, logged } = yield* world
          const { notBefore, notAfter } = validityOf(pairs[0]!.leaf)
          yield* writeStored({ failures: 0, last_attempt_at: iso(notBefore), last_error: null })
          yield* Effect.forEach(accounts, writeAccount)
          yield* TestClock.setTime(notBefore + day)

          const running = yield* start(production, issuer())
          const [served] = yield* running.service.info
          assert.strictEqual(served!.renewal!.next_at, iso(renewAt(notBefore, notAfter, 30 * day)))
          assert.strictEqual((yield* readState).directory, production)
          const seen = accounts.length === 0 ? "no ACME account in the data dir" : "ACME accounts for "
          const note = logged.find((line) => line.startsWith("certificate web has no recorded ACME directory and "))
          assert.isDefined(note, logged.join("\n"))
          assert.include(note, seen)
          for (const account of accounts) assert.include(note, account)
          assert.include(note, `taken as issued by acme.directory ${production}`)
          assert.deepStrictEqual(calls, [])
          yield* running.stop
        }
      }).pipe(Effect.scoped)
  )

  it.effect(
    "a last attempt that is not a time: the state is ignored (logged), a due certificate renewed at start",
    () =>
      Effect.gen(function* () {
        const { pairs, calls, issuer, start, renewed, writeStored, logged } = yield* world
        const { notAfter } = validityOf(pairs[0]!.leaf)
        yield* writeStored({ failures: 3, last_attempt_at: "", last_error: "x", directory: production })
        // In the renewal window.
        const now = notAfter - 10 * day
        yield* TestClock.setTime(now)

        const running = yield* start(production, issuer())
        assert.isTrue(
          logged.some((line) => line.startsWith("ignoring the unreadable renewal state of web: ")),
          logged.join("\n")
        )
        const [served] = yield* running.service.info
        assert.isAtMost(Date.parse(served!.renewal!.next_at), now, "due now")
        yield* waitFor(renewed, (events) => events.length === 1, "the renewal")
        assert.deepStrictEqual(calls, [{ directory: production, at: now }])
        const [renewedInfo] = yield* running.service.info
        assert.strictEqual(renewedInfo!.renewal!.last_attempt_at, iso(now))
        yield* running.stop
      })
  )
})
