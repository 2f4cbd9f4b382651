import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { AcmeFailed } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { makeAcmeStore } from "../../src/certs/AcmeStore.js"
import { parseCertificatePair } from "../../src/certs/CertificatePair.js"
import { makeCert } from "./CertFixtures.js"

// What the ACME store does when the disk refuses a certificate's directory: the renewal must learn it as a failure
// (which it records and backs off from), never as a defect.

const openssl = requireTool("openssl")

// A store whose certificates' directory cannot be made: a regular file stands where it must go (fails for root too).
const blockedStore = Effect.gen(function* () {
  const dir = yield* tempDir("gatehouse-acme-store-")
  const files = makeCert(dir, "web", { san: "DNS:a.test" })
  const pair = yield* parseCertificatePair(files.certPem, files.keyPem)
  const dataDir = path.join(dir, "data")
  yield* Effect.sync(() => {
    fs.mkdirSync(path.join(dataDir, "acme"), { recursive: true })
    fs.writeFileSync(path.join(dataDir, "acme", "certificates"), "")
  })
  return { store: makeAcmeStore(dataDir, "https://127.0.0.1:9/dir"), pair }
})

describe.skipIf(openssl.skip)("AcmeStore", () => {
  it.effect("a certificate directory that cannot be made fails the save with AcmeFailed", () =>
    Effect.gen(function* () {
      const { store, pair } = yield* blockedStore
      const error = yield* Effect.flip(store.saveCertificate("web", pair))
      assert.instanceOf(error, AcmeFailed)
      assert.strictEqual(error.certificate, "web")
      assert.match(error.detail, /^the new certificate could not be stored: .*\(ENOTDIR\)$/)
    })
  )

  it.effect("a renewal record whose directory cannot be made is only logged", () =>
    Effect.gen(function* () {
      const { store } = yield* blockedStore
      yield* store.saveRecord("web", { failures: 1, last_attempt_at: null, last_error: "x" })
    })
  )

  it.effect("the accounts' directories: each once, as directory.txt names it; anything else in accounts/ skipped", () =>
    Effect.gen(function* () {
      const dataDir = path.join(yield* tempDir("gatehouse-acme-accounts-"), "data")
      const staging = "https://acme-staging.test/directory"
      const production = "https://acme.test/directory"
      assert.deepStrictEqual(yield* makeAcmeStore(dataDir, production).accountDirectories, [])
      yield* makeAcmeStore(dataDir, staging).accountKey
      yield* makeAcmeStore(dataDir, production).accountKey
      yield* Effect.sync(() => {
        const accounts = path.join(dataDir, "acme", "accounts")
        // A copy of an account under another name, a stray file, and a directory without directory.txt.
        fs.cpSync(path.join(accounts, fs.readdirSync(accounts)[0]!), path.join(accounts, "copy"), { recursive: true })
        fs.writeFileSync(path.join(accounts, "notes.txt"), "")
        fs.mkdirSync(path.join(accounts, "empty"))
      })
      const found = yield* makeAcmeStore(dataDir, production).accountDirectories
      assert.sameMembers([...found], [staging, production])
    })
  )
})
