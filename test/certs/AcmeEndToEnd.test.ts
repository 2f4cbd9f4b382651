import { execFileSync } from "node:child_process"
import { X509Certificate } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createGatehouseClient } from "../../packages/client/src/index.js"
import { opensslFields } from "../../packages/core/test/certs/CertFixtures.js"
import { openWs, request } from "../../packages/transport-http/test/support/Http.js"
import { requireTool } from "../support/e2e.js"
import { freePort } from "../support/FreePort.js"
import { acmeWorld } from "./AcmeWorld.js"

// Certificates from a real ACME CA: Let's Encrypt's pebble, resolving names through a real BIND, validating
// HTTP-01 against the challenges Gatehouse serves and DNS-01 against TXT records Gatehouse put in BIND by RFC 2136.

const pebble = requireTool("pebble")
const named = requireTool("named")

const web = { name: "web", domains: ["a.gatehouse.test", "b.gatehouse.test"], challenge: "http-01" } as const

const pemBlocks = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []

describe.skipIf(pebble.skip || named.skip)("ACME against pebble", { timeout: 90_000 }, () => {
  it.live(
    "obtains a two-name certificate over HTTP-01 at start: chain to pebble's root, CertInfo as openssl reads it; renews (new serial), streams progress, refuses a second renewal (409)",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const world = yield* acmeWorld()
          const server = yield* world.server([web])
          yield* server.eventsUntil("renewed")
          const info = yield* request(server.url("/cert/info"), { key: server.key })
          assert.strictEqual(info.status, 200, info.text)
          const [cert] = info.json
          assert.strictEqual(cert.name, "web")
          assert.strictEqual(cert.provider, "acme")
          assert.deepStrictEqual(cert.dns_names, ["a.gatehouse.test", "b.gatehouse.test"])
          assert.deepStrictEqual(cert.email_addresses, [])
          assert.isNull(cert.renewal.last_error)
          assert.isFalse(cert.expiring_soon)

          // The stored file: what openssl prints about it is what /cert/info says.
          const stored = path.join(world.dataDir, "acme", "certificates", "web", "certificate.pem")
          assert.strictEqual(fs.statSync(stored).mode & 0o777, 0o600)
          const printed = opensslFields(stored)
          assert.strictEqual(cert.subject, printed.subject)
          assert.strictEqual(cert.issuer, printed.issuer)
          assert.strictEqual(cert.not_before, printed.notBefore)
          assert.strictEqual(cert.not_after, printed.notAfter)
          assert.strictEqual(cert.serial, printed.serial)
          assert.strictEqual(cert.fingerprint_sha256, printed.fingerprint)
          assert.deepStrictEqual(printed.san, ["DNS:a.gatehouse.test", "DNS:b.gatehouse.test"])

          // The chain verifies against pebble's root, by node and by openssl.
          const root = yield* world.pebble.root
          const [leafPem, intermediatePem] = pemBlocks(fs.readFileSync(stored, "utf8"))
          const leaf = new X509Certificate(leafPem!)
          const intermediate = new X509Certificate(intermediatePem!)
          assert.isTrue(leaf.verify(intermediate.publicKey))
          assert.isTrue(intermediate.verify(new X509Certificate(root).publicKey))
          fs.writeFileSync(path.join(world.dir, "root.pem"), root)
          fs.writeFileSync(path.join(world.dir, "intermediate.pem"), intermediatePem!)
          fs.writeFileSync(path.join(world.dir, "leaf.pem"), leafPem!)
          const verified = execFileSync("openssl", [
            ...["verify", "-CAfile", path.join(world.dir, "root.pem")],
            ...["-untrusted", path.join(world.dir, "intermediate.pem"), path.join(world.dir, "leaf.pem")]
          ]).toString()
          assert.strictEqual(verified.trim(), `${path.join(world.dir, "leaf.pem")}: OK`)

          // A plain GET renews: a new certificate (serial), announced as a manual renewal.
          const renewed = yield* request(server.url("/cert/renew"), { key: server.key })
          assert.strictEqual(renewed.status, 200, renewed.text)
          assert.notStrictEqual(renewed.json[0].serial, cert.serial)
          const events = yield* server.eventsUntil("renewed", 2)
          assert.deepInclude(events.filter((e) => e.action === "renewed")[1]!.data, { name: "web", trigger: "manual" })

          // Over WebSocket: each step in order, then the result; the socket then closes normally.
          const socket = yield* openWs(server.ws("/cert/renew"), { key: server.key })
          const closed = yield* Effect.promise(() => socket.closed)
          assert.strictEqual(closed.code, 1000)
          const frames = socket.frames.map((f) => JSON.parse(f))
          // A CA may reuse a name's authorization that is still valid (Let's Encrypt does for 30 days; pebble
          // does once in a hundred even with PEBBLE_AUTHZREUSE=0): that name is then validated without a
          // challenge, and its progress says so. Either way every name is validated once, in the configured order.
          const forName = (domain: string) =>
            frames.some(
              (f) => f.domain === domain && f.step === "validated" && /authorization still valid/.test(f.progress)
            )
              ? [["validated", domain]]
              : [
                  ["challenge_served", domain],
                  ["validated", domain]
                ]
          assert.deepStrictEqual(
            frames.slice(0, -1).map((f) => [f.step, f.domain]),
            [
              ["order_placed", undefined],
              ...forName("a.gatehouse.test"),
              ...forName("b.gatehouse.test"),
              ["issued", undefined],
              ["installed", undefined]
            ],
            JSON.stringify(frames.map((f) => f.progress))
          )
          assert.strictEqual(frames[0].progress, "order placed for a.gatehouse.test, b.gatehouse.test")
          const result = frames.at(-1)
          assert.isTrue(result.ok)
          assert.strictEqual(
            result.certs[0].serial,
            (yield* request(server.url("/cert/info"), { key: server.key })).json[0].serial
          )

          // Two at once: one renews, the other is refused while it runs.
          const both = yield* Effect.all(
            [
              request(server.url("/cert/renew"), { key: server.key }),
              request(server.url("/cert/renew"), { key: server.key })
            ],
            { concurrency: 2 }
          )
          assert.deepStrictEqual(both.map((r) => r.status).sort(), [200, 409])
          const refused = both.find((r) => r.status === 409)!
          assert.deepStrictEqual(refused.json.error, {
            code: "conflict",
            message: "a certificate renewal is already running"
          })

          // The typed client: the list, and a renewal with its progress as an async iterable.
          const client = createGatehouseClient({ baseUrl: server.origin, apiKey: server.key })
          yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
          const listed = yield* Effect.promise(() => client.certs.info())
          assert.strictEqual(listed[0]!.name, "web")
          const progress: Array<string> = []
          for (const frame of yield* Effect.promise(async () => {
            const all = []
            for await (const frame of client.certs.renewWithProgress("web")) all.push(frame)
            return all
          })) {
            progress.push("progress" in frame ? frame.step : frame.ok ? "ok" : "failed")
          }
          assert.deepStrictEqual(progress.at(-1), "ok")
          assert.strictEqual(progress[0], "order_placed")
        })
      )
  )

  it.live(
    "a restart serves the stored certificate without the CA; the CA down: 502, cert/renew_failed, the old certificate stays, and the error survives a restart",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const world = yield* acmeWorld()
          const first = yield* Effect.scoped(
            Effect.gen(function* () {
              const server = yield* world.server([web])
              yield* server.eventsUntil("renewed")
              return (yield* request(server.url("/cert/info"), { key: server.key })).json[0]
            })
          )
          yield* world.pebble.stop
          const after = yield* Effect.scoped(
            Effect.gen(function* () {
              const server = yield* world.server([web])
              const restarted = yield* request(server.url("/cert/info"), { key: server.key })
              assert.strictEqual(restarted.status, 200)
              assert.strictEqual(restarted.json[0].serial, first.serial)
              assert.deepStrictEqual(restarted.json[0].renewal, first.renewal)

              const failed = yield* request(server.url("/cert/renew"), { key: server.key })
              assert.strictEqual(failed.status, 502, failed.text)
              assert.strictEqual(failed.json.error.code, "bad_gateway")
              assert.match(
                failed.json.error.message,
                new RegExp(`^ACME server ${world.pebble.directory} is unreachable: ECONNREFUSED`)
              )
              const events = yield* server.eventsUntil("renew_failed")
              assert.deepInclude(events.find((e) => e.action === "renew_failed")!.data, {
                name: "web",
                code: "bad_gateway",
                error: failed.json.error.message,
                trigger: "manual"
              })
              const after = (yield* request(server.url("/cert/info"), { key: server.key })).json[0]
              assert.strictEqual(after.serial, first.serial)
              assert.strictEqual(after.renewal.last_error, failed.json.error.message)
              assert.isString(after.renewal.last_attempt_at)
              return after
            })
          )
          // The renewal state is kept in the data dir: the next server shows the same error and schedule.
          const server = yield* world.server([web])
          const again = (yield* request(server.url("/cert/info"), { key: server.key })).json[0]
          assert.deepStrictEqual(again.renewal, after.renewal)
          assert.strictEqual(again.serial, first.serial)
        })
      )
  )

  it.live(
    "DNS-01 through BIND (RFC 2136 + TSIG): a name and its wildcard; the TXT records are removed afterwards",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const world = yield* acmeWorld()
          const server = yield* world.server([
            { name: "wild", domains: ["dns.gatehouse.test", "*.dns.gatehouse.test"], challenge: "dns-01" }
          ])
          yield* server.eventsUntil("renewed")
          const [cert] = (yield* request(server.url("/cert/info"), { key: server.key })).json
          assert.deepStrictEqual(cert.dns_names, ["dns.gatehouse.test", "*.dns.gatehouse.test"])
          const { Resolver } = yield* Effect.promise(() => import("node:dns/promises"))
          const resolver = new Resolver()
          resolver.setServers([`127.0.0.1:${world.named.port}`])
          const txt = yield* Effect.promise(() =>
            resolver.resolveTxt("_acme-challenge.dns.gatehouse.test").then(
              (records) => records,
              (error: NodeJS.ErrnoException) => error.code
            )
          )
          assert.strictEqual(txt, "ENODATA")
        })
      )
  )

  it.live("a challenge that fails validation names the domain; nothing is available until one succeeds", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const world = yield* acmeWorld()
        // Gatehouse answers HTTP-01 on another (free) port than the one pebble validates on.
        const elsewhere = yield* freePort
        const server = yield* world.server([{ name: "broken", domains: ["c.gatehouse.test"], challenge: "http-01" }], {
          http01Port: elsewhere
        })
        const events = yield* server.eventsUntil("renew_failed")
        const failure = events.find((e) => e.action === "renew_failed")!
        assert.strictEqual(failure.data.trigger, "scheduled")
        assert.match(
          failure.data.error as string,
          /^http-01 challenge for c\.gatehouse\.test \(certificate "broken"\) failed: /
        )
        // Not available, and the 404 says why: the certificate, with the CA's reason and when it is tried next.
        const info = yield* request(server.url("/cert/info"), { key: server.key })
        assert.strictEqual(info.status, 404)
        assert.strictEqual(info.json.error.code, "not_found")
        const [broken] = info.json.error.details[0].unavailable
        assert.deepInclude(broken, { name: "broken", provider: "acme" })
        assert.isTrue(
          broken.problem.startsWith(`not obtained: ${failure.data.error} (next attempt at `),
          broken.problem
        )
        assert.strictEqual(info.json.error.message, `no certificate available: broken (acme): ${broken.problem}`)
        const renew = yield* request(server.url("/cert/renew"), { key: server.key })
        assert.strictEqual(renew.status, 502)
        assert.match(
          renew.json.error.message,
          /^http-01 challenge for c\.gatehouse\.test \(certificate "broken"\) failed: .*(connection refused|Connection refused)/i
        )
        assert.deepInclude(renew.json.error.details[0], {
          reason: "AcmeChallengeFailed",
          domain: "c.gatehouse.test",
          challenge: "http-01"
        })
      })
    )
  )
})
