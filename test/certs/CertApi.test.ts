import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { AcmeNotConfigured, CertificateNotFound, createGatehouseClient } from "../../packages/client/src/index.js"
import { makeCert } from "../../packages/core/test/certs/CertFixtures.js"
import { openWs, request } from "../../packages/transport-http/test/support/Http.js"
import { runCli } from "../support/Cli.js"
import { requireTool } from "../support/e2e.js"
import { freePort } from "../support/FreePort.js"
import { tempDir } from "../support/TempDir.js"
import { startTestServer } from "../support/TestServer.js"
import { waitFor } from "../support/WaitFor.js"

// The certificate endpoints without an ACME CA: nothing configured, and certificates from files.

const openssl = requireTool("openssl")

describe("certificate endpoints", () => {
  it.live("nothing configured: /cert/info is 404, /cert/renew 503 (no ACME certificate), also before an upgrade", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const url = (p: string) => `${server.baseUrl}${p}`
        const info = yield* request(url("/cert/info"), { key: server.apiKey })
        assert.strictEqual(info.status, 404)
        assert.strictEqual(info.json.error.code, "not_found")
        assert.strictEqual(info.json.error.message, "no certificate available")
        const renew = yield* request(url("/cert/renew"), { key: server.apiKey })
        assert.strictEqual(renew.status, 503, renew.text)
        assert.strictEqual(renew.json.error.code, "unavailable")
        assert.match(renew.json.error.message, /no certificate is managed by ACME/)
        assert.strictEqual((yield* request(url("/cert/renew?name=web"), { key: server.apiKey })).status, 404)
        const refused = yield* Effect.flip(openWs(`${server.wsUrl}/cert/renew`, { key: server.apiKey }))
        assert.strictEqual(refused.status, 503)
        assert.strictEqual((yield* request(url("/cert/info"), { key: null })).status, 401)
      })
    )
  )

  it.live.skipIf(openssl.skip)(
    "file certificates: listed; renewing them is for their files (503), unknown names 404, bad input 400",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir("gh-certapi-")
          const files = makeCert(dir, "main", { san: "DNS:main.test,DNS:www.main.test" })
          const server = yield* startTestServer({
            configYaml: `certificates:\n  - { name: main, cert: ${files.cert}, key: ${files.key} }\n`
          })
          const url = (p: string) => `${server.baseUrl}${p}`
          const info = yield* request(url("/cert/info"), { key: server.apiKey })
          assert.strictEqual(info.status, 200, info.text)
          assert.deepInclude(info.json[0], {
            name: "main",
            provider: "file",
            dns_names: ["main.test", "www.main.test"],
            renewal: null,
            lifetime_days: 90,
            expiring_soon: false
          })

          const all = yield* request(url("/cert/renew"), { key: server.apiKey })
          assert.strictEqual(all.status, 503)
          assert.strictEqual(all.json.error.code, "unavailable")
          const one = yield* request(url("/cert/renew?name=main"), { key: server.apiKey })
          assert.strictEqual(one.status, 503)
          assert.strictEqual(
            one.json.error.message,
            'certificate "main" comes from files, not ACME: replace its files to renew it (they are watched)'
          )
          const unknown = yield* request(url("/cert/renew?name=nope"), { key: server.apiKey })
          assert.strictEqual(unknown.status, 404)
          assert.strictEqual(unknown.json.error.message, 'certificate "nope" not found')
          for (const bad of ["/cert/renew?name=a%20b", "/cert/renew?name=", "/cert/renew?force=1", "/cert/info?x=1"]) {
            const reply = yield* request(url(bad), { key: server.apiKey })
            assert.strictEqual(reply.status, 400, bad)
            assert.strictEqual(reply.json.error.code, "invalid_argument", bad)
          }

          // The typed client decodes the same answers into the domain's types and errors.
          const client = createGatehouseClient({ baseUrl: server.origin, apiKey: server.apiKey })
          yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
          const listed = yield* Effect.promise(() => client.certs.info())
          assert.strictEqual(listed[0]!.fingerprint_sha256, info.json[0].fingerprint_sha256)
          const error = yield* Effect.promise(() =>
            client.certs.renew("main").then(
              () => undefined,
              (e: unknown) => e
            )
          )
          assert.instanceOf(error, AcmeNotConfigured)
          assert.strictEqual((error as AcmeNotConfigured).certificate, "main")
        })
      )
  )

  it.live(
    "only certificates that are not available: the 404 names each with why (its files' problem, its last renewal error)",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir("gh-certapi-unavailable-")
          // An ACME directory nothing answers: the attempt at start fails at once (connection refused).
          const directory = `https://127.0.0.1:${yield* freePort}/dir`
          const server = yield* startTestServer({
            configYaml: [
              "certificates:",
              `  - { name: main, cert: ${dir}/missing/fullchain.pem, key: ${dir}/missing/key.pem }`,
              "acme:",
              `  directory: ${directory}`,
              `  http01: { addr: "127.0.0.1:${yield* freePort}" }`,
              "  certificates:",
              "    - { name: web, domains: [web.example.test], challenge: http-01 }",
              ""
            ].join("\n")
          })
          const url = (p: string) => `${server.baseUrl}${p}`
          yield* waitFor(
            request(url("/events?category=cert"), { key: server.apiKey }),
            (r) => (r.json as ReadonlyArray<{ action: string }>).some((e) => e.action === "renew_failed"),
            "the failed attempt at start"
          )

          const info = yield* request(url("/cert/info"), { key: server.apiKey })
          assert.strictEqual(info.status, 404, info.text)
          assert.strictEqual(info.json.error.code, "not_found")
          const [details] = info.json.error.details
          assert.isArray(details.unavailable, info.text)
          const [main, web] = details.unavailable
          assert.deepStrictEqual(main, {
            name: "main",
            provider: "file",
            problem: `cannot read ${dir}/missing/fullchain.pem: no such file`
          })
          assert.strictEqual(web.name, "web")
          assert.strictEqual(web.provider, "acme")
          const lastError = `ACME server ${directory} is unreachable: ECONNREFUSED`
          assert.match(
            web.problem,
            new RegExp(`^not obtained: ${lastError.replaceAll(".", "\\.")}.* \\(next attempt at `)
          )
          assert.strictEqual(
            info.json.error.message,
            `no certificate available: main (file): ${main.problem}; web (acme): ${web.problem}`
          )

          // The typed client decodes the list; the CLI says the same in its one line.
          const client = createGatehouseClient({ baseUrl: server.origin, apiKey: server.apiKey })
          yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
          const error = yield* Effect.promise(() =>
            client.certs.info().then(
              () => undefined,
              (e: unknown) => e
            )
          )
          assert.instanceOf(error, CertificateNotFound)
          assert.deepStrictEqual((error as CertificateNotFound).unavailable, [main, web])
          const cli = yield* runCli(["cert", "info", "--server", server.origin], {
            cwd: dir,
            env: { GATEHOUSE_API_KEY: server.apiKey }
          })
          assert.strictEqual(cli.code, 1)
          assert.strictEqual(cli.stderr, `gatehouse: ${info.json.error.message}\n`)
        })
      ),
    60_000
  )
})
