import { X509Certificate } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import * as CertificatesLive from "../../src/certs/CertificatesLive.js"
import { Events } from "../../src/events/Events.js"
import { busIn } from "../events/TestBus.js"
import { type CertFiles, makeCertValidBetween } from "./CertFixtures.js"

// A file certificate outside its validity window (expired, or not valid yet) never replaces a valid one in use; with
// none, it is served anyway and said so. Certificates with fixed dates around `now` (a TestClock time, not today's):
// the watcher sees the files change in real time, and its writes settle on the TestClock, moved on by the polls.

const openssl = requireTool("openssl")
const day = 86_400_000
const now = Date.UTC(2031, 2, 1, 12)
const iso = (ms: number) => new Date(ms).toISOString()

const serialOf = (files: CertFiles) => new X509Certificate(files.certPem).serialNumber

const world = Effect.gen(function* () {
  const dir = yield* tempDir("gatehouse-filecert-validity-")
  const live = path.join(dir, "live")
  fs.mkdirSync(live)
  // The pair in use: valid since 10 days, for 80 more.
  const valid = makeCertValidBetween(dir, "valid", { notBefore: now - 10 * day, notAfter: now + 80 * day })
  const cert = path.join(live, "cert.pem")
  const key = path.join(live, "key.pem")
  fs.copyFileSync(valid.key, key)
  fs.copyFileSync(valid.cert, cert)
  // Others for the same key: a deploy that only replaces the certificate file (one change, one load).
  const sameKey = (name: string, notBefore: number, notAfter: number) =>
    makeCertValidBetween(dir, name, { notBefore, notAfter, key: valid.key })
  const { bus } = yield* busIn(dir)
  yield* TestClock.setTime(now)
  const start = Effect.flatMap(
    CertificatesLive.make({
      certificates: [{ name: "main", cert, key }],
      acme: undefined,
      dataDir: path.join(dir, "data"),
      fileSettleMs: 50
    }).pipe(Effect.provideService(Events, bus)),
    (certificates) =>
      Effect.succeed({
        certificates,
        serial: Effect.map(certificates.info, (list) => list.map((c) => `${c.name}:${c.serial}`))
      })
  )
  const certEvents = Effect.map(bus.history({ category: "cert" }), (events) =>
    events.map((e): Record<string, unknown> => ({ action: e.action, ...(e.data as object) }))
  )
  // The watcher's batches settle on the TestClock: each look moves it on a second.
  const settled = <A, E>(read: Effect.Effect<A, E>, check: (a: A) => boolean, what: string) =>
    waitFor(Effect.andThen(TestClock.adjust("1 second"), read), check, what)
  return { dir, valid, cert, key, sameKey, start, certEvents, settled }
})

describe.skipIf(openssl.skip)("file certificates outside their validity window", () => {
  it.effect("an expired certificate written over a valid one: cert/load_failed, the valid one stays in use", () =>
    Effect.gen(function* () {
      const { valid, cert, key, sameKey, start, certEvents, settled } = yield* world
      const { certificates, serial } = yield* start
      assert.deepStrictEqual(yield* serial, [`main:${serialOf(valid)}`])
      assert.deepStrictEqual(yield* certEvents, [], "a valid pair at start is not announced")

      const expired = sameKey("expired", now - 30 * day, now - day)
      fs.copyFileSync(expired.cert, cert)
      const events = yield* settled(certEvents, (e) => e.length > 0, "cert/load_failed")
      assert.deepStrictEqual(events, [
        {
          action: "load_failed",
          name: "main",
          cert,
          key,
          error: `the certificate expired on ${iso(now - day)}`
        }
      ])
      assert.deepStrictEqual(yield* serial, [`main:${serialOf(valid)}`])
      assert.strictEqual((yield* certificates.pem("main")).cert, valid.certPem.trim().concat("\n"))
    }).pipe(Effect.scoped)
  )

  it.effect("one not valid yet is kept out while the valid one is in use, and put in use when its time comes", () =>
    Effect.gen(function* () {
      const { valid, cert, sameKey, start, certEvents, settled } = yield* world
      const { serial } = yield* start
      const next = sameKey("next", now + day, now + 91 * day)
      fs.copyFileSync(next.cert, cert)
      const refused = yield* settled(certEvents, (e) => e.length > 0, "cert/load_failed")
      assert.deepInclude(refused[0], {
        action: "load_failed",
        error: `the certificate is not valid before ${iso(now + day)}`
      })
      assert.deepStrictEqual(yield* serial, [`main:${serialOf(valid)}`])

      // Its files do not change again: it is read again at its start.
      yield* TestClock.setTime(now + day)
      const reloaded = yield* settled(certEvents, (e) => e.length > 1, "cert/reloaded")
      assert.deepInclude(reloaded[1], { action: "reloaded", serial: serialOf(next) })
      assert.deepStrictEqual(yield* serial, [`main:${serialOf(next)}`])
    }).pipe(Effect.scoped)
  )

  it.effect("with no valid pair to serve instead, an expired one is served, and said so", () =>
    Effect.gen(function* () {
      const { cert, sameKey, start, certEvents } = yield* world
      const expired = sameKey("expired", now - 30 * day, now - day)
      fs.copyFileSync(expired.cert, cert)
      const { certificates, serial } = yield* start
      assert.deepStrictEqual(yield* serial, [`main:${serialOf(expired)}`])
      const [listed] = yield* certificates.info
      assert.isBelow(listed!.days_left, 0)
      assert.deepInclude((yield* certEvents)[0], {
        action: "load_failed",
        error: `the certificate expired on ${iso(now - day)}; it is served anyway: there is no valid pair to serve instead`
      })
    }).pipe(Effect.scoped)
  )
})
