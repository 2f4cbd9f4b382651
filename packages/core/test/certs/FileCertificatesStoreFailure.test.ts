import { X509Certificate } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { requireTool } from "../../../../test/support/e2e.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { makeFileCertificates } from "../../src/certs/FileCertificates.js"
import { failingStore } from "../events/FailingStore.js"
import { type CertFiles, liveCertFiles } from "./CertFixtures.js"

// The file provider when the event store fails: the certificate files are still followed. Live clock: the watcher
// waits for writes to settle.

const openssl = requireTool("openssl")

describe.skipIf(openssl.skip)("certificates from files with a failing event store", () => {
  it.live("a reload whose event is lost is logged, and the next replacement of the files is loaded", () =>
    Effect.gen(function* () {
      const { two, three, cert, key, replace } = liveCertFiles(yield* tempDir("gatehouse-filecerts-"))
      const { store, events } = failingStore()
      const lines: Array<string> = []
      const [entry] = yield* makeFileCertificates([{ name: "main", cert, key }], events, { settleMs: 50 }).pipe(
        Effect.provide(Logger.layer([Logger.map(Logger.formatJson, (line) => lines.push(line))]))
      )
      const serial = Effect.sync(() => entry!.pair?.leaf.serialNumber)
      const serialOf = (pair: CertFiles) => new X509Certificate(pair.certPem).serialNumber

      store.failures = 1
      replace(two)
      yield* waitFor(
        Effect.sync(() => store.failures),
        (n) => n === 0,
        "the new pair's event attempted"
      )
      assert.strictEqual(yield* serial, serialOf(two), "in use although not announced")
      replace(three)
      yield* waitFor(serial, (s) => s === serialOf(three), "the next pair loaded")
      assert.deepStrictEqual(
        store.published.map((e) => [e.action, (e.data as { serial?: string }).serial]),
        [["reloaded", serialOf(three)]]
      )
      assert.isTrue(
        lines.some((line) => line.includes("certificate event not published")),
        "the lost event logged"
      )
    }).pipe(Effect.scoped)
  )
})
