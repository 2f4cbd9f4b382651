import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { certInfoOf, subjectAltNames, validityOf } from "../../src/certs/CertInfoOf.js"
import { parseCertificatePair } from "../../src/certs/CertificatePair.js"
import { readCertificateFiles } from "../../src/certs/FileCertificateLoad.js"
import { makeCert, opensslFields } from "./CertFixtures.js"

const openssl = requireTool("openssl")
const day = 86_400_000
const thirtyDays = 30 * day

describe.skipIf(openssl.skip)("CertInfo from a certificate file", () => {
  it.effect("matches what `openssl x509` prints for the same file", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-certinfo-")
      const files = makeCert(dir, "main", {
        subject: "/C=US/O=Example, Inc./CN=www.example.test",
        san: "DNS:www.example.test,DNS:example.test,email:ops@example.test,IP:127.0.0.1",
        days: 90
      })
      const pair = yield* parseCertificatePair(files.certPem, files.keyPem)
      const { notBefore } = validityOf(pair.leaf)
      const now = notBefore + 10 * day + 3_600_000
      const info = certInfoOf({
        name: "main",
        provider: "file",
        leaf: pair.leaf,
        now,
        renewBeforeMs: thirtyDays,
        renewal: null
      })
      const printed = opensslFields(files.cert)
      assert.strictEqual(info.subject, printed.subject)
      assert.strictEqual(info.subject, "CN=www.example.test,O=Example\\, Inc.,C=US")
      assert.strictEqual(info.issuer, printed.issuer)
      assert.strictEqual(info.not_before, printed.notBefore)
      assert.strictEqual(info.not_after, printed.notAfter)
      assert.strictEqual(info.serial, printed.serial)
      assert.strictEqual(info.fingerprint_sha256, printed.fingerprint)
      assert.deepStrictEqual(info.dns_names, ["www.example.test", "example.test"])
      assert.deepStrictEqual(info.email_addresses, ["ops@example.test"])
      assert.deepStrictEqual(printed.san, [
        "DNS:www.example.test",
        "DNS:example.test",
        "email:ops@example.test",
        "IP Address:127.0.0.1"
      ])
      assert.strictEqual(info.days_left, 79)
      assert.strictEqual(info.lifetime_days, 90)
      assert.isFalse(info.expiring_soon)
      assert.strictEqual(info.provider, "file")
      assert.isNull(info.renewal)
    })
  )

  it.effect("an expired certificate has negative days_left and is expiring", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-certinfo-")
      const files = makeCert(dir, "old", { days: 10 })
      const pair = yield* parseCertificatePair(files.certPem, files.keyPem)
      const { notAfter } = validityOf(pair.leaf)
      const info = certInfoOf({
        name: "old",
        provider: "file",
        leaf: pair.leaf,
        now: notAfter + 3 * day + 1000,
        renewBeforeMs: thirtyDays,
        renewal: null
      })
      assert.strictEqual(info.days_left, -4)
      assert.isTrue(info.expiring_soon)
    })
  )

  it.effect("expiring soon is judged against the lifetime: a 6-day certificate in its last third only", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-certinfo-")
      const short = yield* Effect.flatMap(
        Effect.sync(() => makeCert(dir, "short", { days: 6 })),
        (f) => parseCertificatePair(f.certPem, f.keyPem)
      )
      const { notBefore, notAfter } = validityOf(short.leaf)
      const at = (now: number) =>
        certInfoOf({ name: "s", provider: "file", leaf: short.leaf, now, renewBeforeMs: thirtyDays, renewal: null })
      assert.strictEqual(at(notBefore + day).lifetime_days, 6)
      assert.isFalse(at(notBefore + day).expiring_soon, "day 1 of 6")
      assert.isFalse(at(notAfter - 2 * day - 1000).expiring_soon, "just before the last third")
      assert.isTrue(at(notAfter - 2 * day).expiring_soon, "the last third (2 days)")
      // A 90-day certificate: 30 days before expiry, not a third of 90 (also 30) — take a 120-day one to tell.
      const long = yield* Effect.flatMap(
        Effect.sync(() => makeCert(dir, "long", { days: 120 })),
        (f) => parseCertificatePair(f.certPem, f.keyPem)
      )
      const v = validityOf(long.leaf)
      const atLong = (now: number) =>
        certInfoOf({ name: "l", provider: "file", leaf: long.leaf, now, renewBeforeMs: thirtyDays, renewal: null })
      assert.isFalse(atLong(v.notAfter - 31 * day).expiring_soon)
      assert.isTrue(atLong(v.notAfter - 29 * day).expiring_soon)
    })
  )
})

describe.skipIf(openssl.skip)("certificate files", () => {
  it.effect("a key of another certificate is refused", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-certinfo-")
      const one = makeCert(dir, "one")
      const two = makeCert(dir, "two")
      const problem = yield* Effect.flip(parseCertificatePair(one.certPem, two.keyPem))
      assert.strictEqual(problem.reason, "the private key does not match the certificate")
      const swapped = yield* Effect.flip(readCertificateFiles({ name: "x", cert: one.cert, key: two.key }))
      assert.strictEqual(swapped.reason, "the private key does not match the certificate")
    })
  )

  it.effect("unreadable and malformed files are named with the reason", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-certinfo-")
      const good = makeCert(dir, "good")
      const missing = yield* Effect.flip(
        readCertificateFiles({ name: "x", cert: path.join(dir, "nope.crt"), key: good.key })
      )
      assert.strictEqual(missing.reason, `cannot read ${path.join(dir, "nope.crt")}: no such file`)
      const directory = yield* Effect.flip(readCertificateFiles({ name: "x", cert: good.cert, key: dir }))
      assert.strictEqual(directory.reason, `cannot read ${dir}: is a directory, not a file`)
      fs.writeFileSync(path.join(dir, "junk.crt"), "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
      const junk = yield* Effect.flip(
        readCertificateFiles({ name: "x", cert: path.join(dir, "junk.crt"), key: good.key })
      )
      assert.match(junk.reason, /^not a valid X\.509 certificate/)
      const noKey = yield* Effect.flip(parseCertificatePair(good.certPem, good.certPem))
      assert.strictEqual(noKey.reason, "no PEM private key in the key file")
    })
  )

  it("subjectAltName entries with a comma come quoted from node and are read back whole", () => {
    assert.deepStrictEqual(subjectAltNames('DNS:a.test, email:"x, y@z.test", IP Address:::1'), [
      { kind: "DNS", value: "a.test" },
      { kind: "email", value: "x, y@z.test" },
      { kind: "IP Address", value: "::1" }
    ])
  })
})
