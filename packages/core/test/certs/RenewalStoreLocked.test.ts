import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AcmeFailed, type CertRenewFrame } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Logger, type Scope, Stream } from "effect"
import { TestClock } from "effect/testing"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import type { Issuer } from "../../src/certs/AcmeCertificates.js"
import { freshRecord, makeAcmeStore } from "../../src/certs/AcmeStore.js"
import { validityOf } from "../../src/certs/CertInfoOf.js"
import { type CertificatePair, parseCertificatePair } from "../../src/certs/CertificatePair.js"
import * as CertificatesLive from "../../src/certs/CertificatesLive.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Events } from "../../src/events/Events.js"
import { Database } from "../../src/store/SqliteDriver.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { makeCert, oneCertificateAcme } from "./CertFixtures.js"

// A manual renewal while the event store cannot be written (another process holds its write lock, as the sqlite3
// shell in a transaction does): the outcome of each order is the answer, the events are lost and logged. A real
// SQLite store whose busy wait is 0 (the server's 5 s would only slow the test down: the write fails either way),
// TestClock, a stand-in issuer (as in RenewalState.test).

const openssl = requireTool("openssl")
const minute = 60_000
const logged: Array<string> = []
const captureLogs = Logger.layer([Logger.make(({ message }) => logged.push(String(message)))])

const world = Effect.gen(function* () {
  const dir = yield* tempDir("gatehouse-renewal-locked-")
  const filename = path.join(dir, "gatehouse.db")
  const repository = Context.get(
    yield* Layer.build(
      EventRepository.layer.pipe(Layer.provide(Layer.orDie(StoreLive.layer({ filename, busyTimeoutMs: 0 }))))
    ),
    EventRepository
  )
  const bus = yield* EventBus.make().pipe(Effect.provideService(EventRepository, repository))
  // Pairs for each certificate, for its names: the one stored, then one per renewal.
  const pairsOf = (name: string, domain: string) =>
    Effect.forEach([0, 1, 2], (n) => {
      const files = makeCert(dir, `${name}-${n}`, { san: `DNS:${domain}` })
      return parseCertificatePair(files.certPem, files.keyPem)
    })
  const pairs: Record<string, Array<CertificatePair>> = {
    web: yield* pairsOf("web", "a.test"),
    api: yield* pairsOf("api", "b.test")
  }
  // What the CA does with the next order of each certificate (by default: issues its next pair).
  const outcome: Record<string, "issue" | "refuse" | "crash"> = { web: "issue", api: "issue" }
  const issue: Issuer = (options) =>
    Effect.suspend(() => {
      const name = options.certificate.name
      if (outcome[name] === "refuse") return Effect.fail(new AcmeFailed({ certificate: name, detail: "rateLimited" }))
      if (outcome[name] === "crash") return Effect.die(new Error(`a bug while ordering ${name}`))
      return Effect.succeed(pairs[name]!.shift()!)
    })
  const serialOf = (pair: CertificatePair) => pair.leaf.serialNumber.toUpperCase()
  logged.length = 0
  // Both obtained before (stored in the data dir, as a start finds them): nothing is due, so no renewal of the
  // scheduler's holds the lock when the test asks for one.
  const acme = {
    ...oneCertificateAcme(),
    certificates: [
      { name: "web", domains: ["a.test"], challenge: "http-01" as const },
      { name: "api", domains: ["b.test"], challenge: "http-01" as const }
    ]
  }
  const dataDir = path.join(dir, "data")
  const store = makeAcmeStore(dataDir, acme.directory)
  for (const name of ["web", "api"]) {
    yield* store.saveCertificate(name, pairs[name]!.shift()!)
    yield* store.saveRecord(name, { ...freshRecord, directory: acme.directory })
  }
  yield* TestClock.setTime(validityOf(pairs.web![0]!.leaf).notBefore + minute)
  const certificates = yield* CertificatesLive.make({ certificates: [], acme, dataDir, issue }).pipe(
    Effect.provideService(Events, bus)
  )
  const serials = Effect.map(certificates.info, (list) => list.map((c) => `${c.name}:${c.serial}`))
  const other = new Database(filename)
  yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
  const lockStore = Effect.sync(() => other.exec("BEGIN IMMEDIATE"))
  const renewedEvents = Effect.map(bus.history({ category: "cert" }), (events) =>
    events.filter((e) => e.action === "renewed")
  )
  const frames = Effect.flatMap(certificates.renewWithProgress(), (stream) =>
    Effect.map(Stream.runCollect(stream), (all): ReadonlyArray<CertRenewFrame> => all)
  )
  return { certificates, pairs, outcome, serials, serialOf, lockStore, renewedEvents, frames }
})

// The logger reaches the renewal's fibers too (forked from the test's calls).
const run = <A, E>(test: Effect.Effect<A, E, Scope.Scope>) => Effect.scoped(test).pipe(Effect.provide(captureLogs))

describe.skipIf(openssl.skip)("a manual renewal while the event store cannot be written", () => {
  it.effect("renews every certificate and says so: both serials change, the final frame is ok", () =>
    run(
      Effect.gen(function* () {
        const { pairs, serials, serialOf, lockStore, renewedEvents, frames, certificates } = yield* world
        const [web, api] = [pairs.web![0]!, pairs.api![0]!]
        yield* lockStore

        const all = yield* frames
        const last = all.at(-1)!
        assert.isTrue("ok" in last && last.ok, JSON.stringify(last))
        const renewed = [`web:${serialOf(web)}`, `api:${serialOf(api)}`]
        assert.deepStrictEqual(
          "certs" in last ? last.certs!.map((c) => `${c.name}:${c.serial}`) : [],
          renewed,
          "the final frame lists both new certificates"
        )
        assert.deepStrictEqual(yield* serials, renewed)
        assert.deepStrictEqual(
          all.flatMap((f) => ("step" in f && f.step === "installed" ? [f.certificate] : [])),
          ["web", "api"]
        )
        assert.strictEqual(logged.filter((line) => line.includes("certificate event not published")).length, 2)
        assert.deepStrictEqual(yield* renewedEvents, [], "the events were lost (and logged)")

        // The plain renewal too: the new list, not a 503 "store locked".
        const next = [`web:${serialOf(pairs.web![0]!)}`, `api:${serialOf(pairs.api![0]!)}`]
        assert.deepStrictEqual(
          (yield* certificates.renew()).map((c) => `${c.name}:${c.serial}`),
          next
        )
        assert.deepStrictEqual(yield* serials, next)
      })
    )
  )

  it.effect("a refused order is answered with the CA's reason (502), and the next certificate is still renewed", () =>
    run(
      Effect.gen(function* () {
        const { pairs, outcome, serials, serialOf, lockStore, frames, certificates } = yield* world
        const [web, api] = [pairs.web![0]!, pairs.api![0]!]
        const before = yield* serials
        yield* lockStore
        outcome.web = "refuse"

        const last = (yield* frames).at(-1)!
        assert.deepStrictEqual(last, {
          ok: false,
          error: { code: "bad_gateway", message: 'ACME order for certificate "web" failed: rateLimited' }
        })
        assert.deepStrictEqual(yield* serials, [before[0], `api:${serialOf(api)}`])
        const [listed] = yield* certificates.info
        assert.strictEqual(listed!.renewal!.last_error, 'ACME order for certificate "web" failed: rateLimited')

        const plain = yield* Effect.flip(certificates.renew("web"))
        assert.instanceOf(plain, AcmeFailed)
        outcome.web = "issue"
        assert.strictEqual((yield* certificates.renew("web"))[0]!.serial, serialOf(web))
      })
    )
  )

  it.effect("an order that crashed (a bug) does not keep the next certificate from being renewed", () =>
    run(
      Effect.gen(function* () {
        const { pairs, outcome, serials, serialOf, lockStore, frames } = yield* world
        const api = pairs.api![0]!
        const before = yield* serials
        yield* lockStore
        outcome.web = "crash"

        const last = (yield* frames).at(-1)!
        assert.deepStrictEqual(last, { ok: false, error: { code: "internal", message: "internal error" } })
        assert.deepStrictEqual(yield* serials, [before[0], `api:${serialOf(api)}`])
      })
    )
  )
})
