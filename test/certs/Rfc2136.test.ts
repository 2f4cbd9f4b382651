import { Resolver } from "node:dns/promises"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as dnsPacket from "dns-packet"
import { Effect, Redacted } from "effect"
import { exchangeTcp } from "../../packages/core/src/certs/dns/DnsTcp.js"
import { updateMessage } from "../../packages/core/src/certs/dns/DnsWire.js"
import * as Rfc2136Provider from "../../packages/core/src/certs/dns/Rfc2136Provider.js"
import { readResponseTsig, signMessage, verifyResponse } from "../../packages/core/src/certs/dns/Tsig.js"
import { requireTool } from "../support/e2e.js"
import { startNamed } from "../support/Named.js"
import { tempDir } from "../support/TempDir.js"

// The RFC 2136 DNS provider and its TSIG signatures against a real BIND: BIND only applies an update whose
// signature it verifies, and its signed answers must verify here.

const named = requireTool("named")

const txtOf = (port: number, name: string) =>
  Effect.promise(() => {
    const resolver = new Resolver()
    resolver.setServers([`127.0.0.1:${port}`])
    return resolver.resolveTxt(name).then(
      (records) => records.map((chunks) => chunks.join("")).sort(),
      (error: NodeJS.ErrnoException) => error.code ?? "error"
    )
  })

describe.skipIf(named.skip)("RFC 2136 provider against BIND", { timeout: 30_000 }, () => {
  it.live("adds TXT records next to each other, sees them, removes exactly one; a wrong key is refused by name", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("gh-named-")
        const server = yield* startNamed(path.join(dir, "named"))
        const options = {
          server: { host: "127.0.0.1", port: server.port },
          zone: server.zone,
          keyName: server.keyName,
          keyAlgorithm: "hmac-sha256" as const,
          keySecret: Redacted.make(server.keySecret),
          ttlSeconds: 60,
          propagationTimeoutMs: 5000,
          pollIntervalMs: 50
        }
        const dns = Rfc2136Provider.make(options)
        const name = "_acme-challenge.x.gatehouse.test"
        const one = { fqdn: name, value: "first-value" }
        const two = { fqdn: name, value: "second-value" }
        yield* dns.present(one)
        yield* dns.present(two)
        yield* dns.waitForPropagation(two)
        assert.deepStrictEqual(yield* txtOf(server.port, name), ["first-value", "second-value"])
        yield* dns.cleanup(one)
        assert.deepStrictEqual(yield* txtOf(server.port, name), ["second-value"])
        yield* dns.cleanup(two)
        assert.strictEqual(yield* txtOf(server.port, name), "ENODATA")

        const notThere = yield* Effect.flip(
          Rfc2136Provider.make({ ...options, propagationTimeoutMs: 300 }).waitForPropagation(one)
        )
        assert.strictEqual(
          notThere.detail,
          `the TXT record ${name} was not visible at 127.0.0.1:${server.port} within 300 ms`
        )
        const badSecret = Rfc2136Provider.make({
          ...options,
          keySecret: Redacted.make(Buffer.alloc(32, 7).toString("base64"))
        })
        const refused = yield* Effect.flip(badSecret.present(one))
        assert.strictEqual(
          refused.detail,
          `DNS update of zone gatehouse.test at 127.0.0.1:${server.port} refused: NOTAUTH (TSIG BADSIG)`
        )
        const unknownKey = yield* Effect.flip(Rfc2136Provider.make({ ...options, keyName: "nobody" }).present(one))
        assert.strictEqual(
          unknownKey.detail,
          `DNS update of zone gatehouse.test at 127.0.0.1:${server.port} refused: NOTAUTH (TSIG BADKEY)`
        )
        assert.strictEqual(yield* txtOf(server.port, name), "ENODATA")
        const down = yield* Effect.flip(
          Rfc2136Provider.make({ ...options, server: { host: "127.0.0.1", port: 1 } }).present(one)
        )
        assert.strictEqual(down.detail, "DNS server 127.0.0.1:1: ECONNREFUSED")
      })
    )
  )

  it.live("BIND's signed answer verifies; a changed byte, another key or a stale time does not", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("gh-named-")
        const server = yield* startNamed(path.join(dir, "named"))
        const key = {
          name: server.keyName,
          algorithm: "hmac-sha256" as const,
          secret: Buffer.from(server.keySecret, "base64")
        }
        const now = Math.floor(Date.now() / 1000)
        const message = updateMessage(4242, server.zone, [
          { action: "add", name: "_acme-challenge.y.gatehouse.test", value: "v", ttl: 60 }
        ])
        const { signed, mac } = signMessage(message, key, now)
        const response = yield* exchangeTcp({ host: "127.0.0.1", port: server.port }, signed)
        const decoded = dnsPacket.decode(response) as ReturnType<typeof dnsPacket.decode> & { rcode: string }
        assert.strictEqual(decoded.rcode, "NOERROR")
        const record = decoded.additionals!.find((r) => r.type === "TSIG")!
        const tsig = readResponseTsig(response, (record as unknown as { data: Buffer }).data, record.name)
        assert.strictEqual(tsig.originalId, 4242)
        assert.isUndefined(verifyResponse(response, tsig, key, mac, now))

        const changed = Buffer.from(response)
        changed[3] = changed[3]! ^ 0x01
        assert.strictEqual(
          verifyResponse(changed, tsig, key, mac, now),
          "the response's TSIG signature does not verify"
        )
        const otherKey = { ...key, secret: Buffer.alloc(32, 1) }
        assert.strictEqual(
          verifyResponse(response, tsig, otherKey, mac, now),
          "the response's TSIG signature does not verify"
        )
        assert.strictEqual(
          verifyResponse(response, tsig, key, Buffer.alloc(32), now),
          "the response's TSIG signature does not verify"
        )
        assert.strictEqual(
          verifyResponse(response, tsig, key, mac, now + 301),
          "the response's TSIG time is outside the allowed fudge"
        )
      })
    )
  )
})
