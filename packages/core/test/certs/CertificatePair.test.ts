import { X509Certificate } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { brokenLink, parseCertificatePair } from "../../src/certs/CertificatePair.js"
import { makeChain, openssl } from "./CertFixtures.js"

// The checks of a certificate file and its key: the key is the first certificate's, and each certificate is
// followed by the one that issued it. On a PKI made with openssl, and on a chain as pebble (Let's Encrypt's test
// CA) really sends it.

const tool = requireTool("openssl")

const pebbleFixture = (name: string) =>
  fs.readFileSync(path.join(import.meta.dirname, "fixtures", "pebble", name), "utf8")

const pki = Effect.map(tempDir("gatehouse-chain-"), (dir) => ({ dir, ...makeChain(dir) }))

const refusal = (certPem: string, keyPem: string) =>
  Effect.map(Effect.flip(parseCertificatePair(certPem, keyPem)), (problem) => problem.reason)

describe.skipIf(tool.skip)("certificate pair", () => {
  it.effect("a leaf, then its intermediate (then the root) is accepted", () =>
    Effect.gen(function* () {
      const { leaf, intermediate, root, leafKey } = yield* pki
      const pair = yield* parseCertificatePair(leaf + intermediate, leafKey)
      assert.strictEqual(pair.chain.length, 2)
      assert.strictEqual(pair.leaf.subject, "CN=a.test")
      assert.strictEqual((yield* parseCertificatePair(leaf + intermediate + root, leafKey)).chain.length, 3)
    })
  )

  it.effect("the intermediate before the leaf: the leaf must come first (not a key mismatch)", () =>
    Effect.gen(function* () {
      const { leaf, intermediate, leafKey } = yield* pki
      assert.strictEqual(
        yield* refusal(intermediate + leaf, leafKey),
        "the certificate of the private key is certificate 2 of the certificate file: it must come first, then the " +
          "certificates that issued it"
      )
    })
  )

  it.effect("a leaf followed by a certificate that did not issue it is refused, saying which", () =>
    Effect.gen(function* () {
      const { leaf, intermediate, root, otherRoot, leafKey } = yield* pki
      assert.strictEqual(
        yield* refusal(leaf + otherRoot, leafKey),
        "certificate 2 of the certificate file (CN=Other Root) did not issue certificate 1 (CN=a.test, issued by " +
          "CN=Test Intermediate): each certificate must be followed by the one that issued it"
      )
      // The intermediate left out: the root did not issue the leaf.
      assert.include(yield* refusal(leaf + root, leafKey), "certificate 2 of the certificate file (CN=Test Root)")
      // A wrong root after a right intermediate: the link checked is the second one.
      assert.include(
        yield* refusal(leaf + intermediate + otherRoot, leafKey),
        "certificate 3 of the certificate file (CN=Other Root) did not issue certificate 2 (CN=Test Intermediate"
      )
    })
  )

  it.effect("an impostor with the issuer's name and key identifier, but not its key, is refused", () =>
    Effect.gen(function* () {
      const { dir, leaf, leafKey } = yield* pki
      const keyId = openssl([
        "x509",
        "-in",
        path.join(dir, "intermediate.crt"),
        "-noout",
        "-ext",
        "subjectKeyIdentifier"
      ])
        .split("\n")[1]!
        .trim()
      const impostor = path.join(dir, "impostor.crt")
      openssl([
        ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"],
        ...["-keyout", path.join(dir, "impostor.key"), "-days", "90", "-subj", "/CN=Test Intermediate"],
        ...["-addext", "basicConstraints=critical,CA:TRUE", "-addext", `subjectKeyIdentifier=${keyId}`],
        ...["-out", impostor]
      ])
      assert.include(
        yield* refusal(leaf + fs.readFileSync(impostor, "utf8"), leafKey),
        "certificate 2 of the certificate file (CN=Test Intermediate) did not issue certificate 1"
      )
    })
  )

  it.effect("pebble's chain (leaf, then intermediate; with its root after them) is accepted", () =>
    Effect.gen(function* () {
      const chain = pebbleFixture("chain.pem")
      const pair = yield* parseCertificatePair(chain, pebbleFixture("leaf-key.pem"))
      assert.strictEqual(pair.chain.length, 2)
      assert.strictEqual(pair.leaf.subject, "CN=pebble-fixture.test")
      assert.match(pair.chain[1]!.subject, /^CN=Pebble Intermediate CA /)
      // As a file may hold it, with the root last; the root right after the leaf is refused.
      const withRoot = [...pair.chain, new X509Certificate(pebbleFixture("root.pem"))]
      assert.isUndefined(brokenLink(withRoot))
      assert.match(
        brokenLink([withRoot[0]!, withRoot[2]!])!,
        /^certificate 2 of the certificate file \(CN=Pebble Root CA /
      )
    })
  )

  it.effect(
    "a passphrase-protected key (PKCS#8, or OpenSSL's older form) is named as such, not as an invalid key",
    () =>
      Effect.gen(function* () {
        const { dir, leaf, leafKey } = yield* pki
        const encrypted = (command: ReadonlyArray<string>) =>
          openssl([...command, "-in", path.join(dir, "leaf.key"), "-aes256", "-passout", "pass:secret"])
        const pkcs8 = encrypted(["pkey"])
        const traditional = encrypted(["ec"])
        assert.match(pkcs8, /^-----BEGIN ENCRYPTED PRIVATE KEY-----/)
        assert.match(traditional, /^Proc-Type: 4,ENCRYPTED$/m)
        const said =
          "the private key is encrypted (passphrase-protected), which is not supported: store it decrypted " +
          "(openssl pkey -in key.pem -out plain-key.pem), readable by the server's user only"
        assert.strictEqual(yield* refusal(leaf, pkcs8), said)
        assert.strictEqual(yield* refusal(leaf, traditional), said)
        assert.strictEqual((yield* parseCertificatePair(leaf, leafKey)).chain.length, 1, "the same key decrypted")
      })
  )
})
