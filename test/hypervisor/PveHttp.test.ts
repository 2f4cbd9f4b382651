import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as zlib from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PveConnectionFailed, sendPveRequest } from "../../packages/core/src/hypervisor/PveHttp.js"
import { generateCertificate } from "../pve-sim/SimCertificate.js"

/** An HTTPS server on loopback answering every request with `body` gzipped; its URL. */
const gzipServer = (body: Buffer) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<https.Server>((resolve) => {
          const cert = generateCertificate()
          const compressed = zlib.gzipSync(body)
          const server = https.createServer({ key: cert.keyPem, cert: cert.certPem }, (_req, res) => {
            res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
            res.end(compressed)
          })
          server.listen(0, "127.0.0.1", () => resolve(server))
        })
    ),
    (server) => Effect.sync(() => server.close())
  ).pipe(Effect.map((server) => new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`)))

// The test's own self-signed certificate on loopback: the real client pins the node's fingerprint instead.
const agent = new https.Agent({ rejectUnauthorized: false })

describe("PVE HTTP answers", () => {
  it.live("a gzip answer is bounded by what it inflates to, not only by the bytes on the wire", () =>
    Effect.gen(function* () {
      // 40 MiB of zeros is ~40 KiB gzipped: under the 32 MiB bound on the wire, far over it inflated.
      const bomb = yield* gzipServer(Buffer.alloc(40 * 1024 * 1024))
      const refused = yield* Effect.flip(sendPveRequest(agent, bomb, { method: "GET", path: "/version" }))
      assert.instanceOf(refused, PveConnectionFailed)
      assert.strictEqual(refused.reason, "answer larger than 33554432 bytes once decompressed")

      const small = yield* gzipServer(Buffer.from(JSON.stringify({ data: { version: "8.2.4" } })))
      const answer = yield* sendPveRequest(agent, small, { method: "GET", path: "/version" })
      assert.deepStrictEqual(JSON.parse(answer.body), { data: { version: "8.2.4" } })
    }).pipe(Effect.scoped)
  )
})
