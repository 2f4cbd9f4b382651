import { X509Certificate } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AcmeNotConfigured, CertificateNotFound } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import * as CertificatesLive from "../../src/certs/CertificatesLive.js"
import { Events } from "../../src/events/Events.js"
import { busIn } from "../events/TestBus.js"
import { liveCertFiles } from "./CertFixtures.js"

// The file provider on a real file system: files replaced on disk are picked up; a bad pair is reported and the
// previous pair stays. Live clock: the watcher waits for writes to settle.

const openssl = requireTool("openssl")

describe.skipIf(openssl.skip)("certificates from files", () => {
  it.live(
    "replaced files are reloaded; a mismatched pair is reported and the previous one kept",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir("gatehouse-filecerts-")
          const { one, two, three, cert, key } = liveCertFiles(dir)
          const { bus } = yield* busIn(dir)
          const serialOf = (pem: string) => new X509Certificate(pem).serialNumber
          const certificates = yield* CertificatesLive.make({
            certificates: [
              { name: "main", cert, key },
              { name: "absent", cert: path.join(dir, "nope.pem"), key: path.join(dir, "nope.key") }
            ],
            acme: undefined,
            dataDir: path.join(dir, "data"),
            fileSettleMs: 100
          }).pipe(Effect.provideService(Events, bus))
          const serial = Effect.map(certificates.info, (list) => list.map((c) => `${c.name}:${c.serial}`))
          const certEvents = bus.history({ category: "cert" })

          assert.deepStrictEqual(yield* serial, [`main:${serialOf(one.certPem)}`])
          const [missing] = yield* certEvents
          assert.deepInclude(missing!.data, {
            name: "absent",
            error: `cannot read ${path.join(dir, "nope.pem")}: no such file`
          })
          assert.strictEqual(missing!.action, "load_failed")

          // A deploy replaces both files (key first): the new pair is in use and announced.
          fs.copyFileSync(two.key, key)
          fs.copyFileSync(two.cert, cert)
          yield* waitFor(serial, (s) => s[0] === `main:${serialOf(two.certPem)}`, "the new pair")
          const reloaded = yield* waitFor(
            certEvents,
            (events) => events.some((e) => e.action === "reloaded"),
            "cert/reloaded"
          )
          assert.deepInclude(reloaded.find((e) => e.action === "reloaded")!.data, {
            name: "main",
            serial: serialOf(two.certPem)
          })

          // Only the certificate replaced: it does not match the key. Reported; the previous pair stays in use.
          fs.copyFileSync(three.cert, cert)
          const failed = yield* waitFor(
            certEvents,
            (events) => events.filter((e) => e.action === "load_failed").length === 2,
            "cert/load_failed"
          )
          assert.deepInclude(failed.at(-1)!.data, {
            name: "main",
            cert,
            key,
            error: "the private key does not match the certificate"
          })
          assert.deepStrictEqual(yield* serial, [`main:${serialOf(two.certPem)}`])
          const pem = yield* certificates.pem("main")
          assert.strictEqual(pem.cert, two.certPem.trim().concat("\n"))
        })
      ),
    30_000
  )

  it.live(
    "a directory absent at start: its certificate is loaded once the directory and files appear, and again if remade",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir("gatehouse-filecerts-late-")
          const { one, two } = liveCertFiles(dir)
          const { bus } = yield* busIn(dir)
          // Two levels missing: the watch waits at `dir` for `mount` (then at `mount` for `tls`, if it is not there yet).
          const mount = path.join(dir, "mount")
          const live = path.join(mount, "tls")
          const cert = path.join(live, "cert.pem")
          const key = path.join(live, "key.pem")
          const certificates = yield* CertificatesLive.make({
            certificates: [{ name: "late", cert, key }],
            acme: undefined,
            dataDir: path.join(dir, "data"),
            fileSettleMs: 100
          }).pipe(Effect.provideService(Events, bus))
          const serial = Effect.map(Effect.option(certificates.info), (list) =>
            list._tag === "None" ? [] : list.value.map((c) => `${c.name}:${c.serial}`)
          )
          const reloaded = Effect.map(bus.history({ category: "cert" }), (events) =>
            events.filter((e) => e.action === "reloaded")
          )
          assert.deepStrictEqual(yield* serial, [])

          fs.mkdirSync(mount)
          fs.mkdirSync(live)
          fs.copyFileSync(one.key, key)
          fs.copyFileSync(one.cert, cert)
          yield* waitFor(serial, (s) => s[0] === `late:${new X509Certificate(one.certPem).serialNumber}`, "the pair")
          const [announced] = yield* waitFor(reloaded, (events) => events.length === 1, "cert/reloaded")
          assert.deepInclude(announced!.data, { name: "late", serial: new X509Certificate(one.certPem).serialNumber })

          // Removed and made again with another pair: the watch follows the new directory.
          fs.rmSync(live, { recursive: true })
          fs.mkdirSync(live)
          fs.copyFileSync(two.key, key)
          fs.copyFileSync(two.cert, cert)
          yield* waitFor(
            serial,
            (s) => s[0] === `late:${new X509Certificate(two.certPem).serialNumber}`,
            "the new pair"
          )
          yield* waitFor(reloaded, (events) => events.length === 2, "the second cert/reloaded")
        })
      ),
    30_000
  )

  it.effect("no certificate configured: not found", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-filecerts-")
        const { bus } = yield* busIn(dir)
        const certificates = yield* CertificatesLive.make({ certificates: [], acme: undefined, dataDir: dir }).pipe(
          Effect.provideService(Events, bus)
        )
        const error = yield* Effect.flip(certificates.info)
        assert.instanceOf(error, CertificateNotFound)
        assert.strictEqual(error.message, "no certificate available")
        // Renewing needs an ACME certificate: without any, a 503 (as with file certificates only), not a 404.
        assert.instanceOf(yield* Effect.flip(certificates.renew()), AcmeNotConfigured)
        assert.instanceOf(yield* Effect.flip(certificates.renew("nope")), CertificateNotFound)
        assert.instanceOf(yield* Effect.flip(certificates.pem()), CertificateNotFound)
      })
    )
  )
})
