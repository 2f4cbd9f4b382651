import { assert, describe, it } from "@effect/vitest"
import { hashPassword } from "@gatehouse-edge/core"
import { Effect } from "effect"
import { build } from "esbuild"
import { launchChromium } from "../support/Chromium.js"
import { requireTool } from "../support/e2e.js"
import { startTestServer } from "../support/TestServer.js"

// `@gatehouse-edge/client` as a web page uses it: bundled for the browser (from source, as a bundler would take
// the published package) and run in a page of the server, with no API key — the session cookie authenticates.

const { skip } = requireTool("chromium")

const bundle = Effect.promise(() =>
  build({
    entryPoints: ["packages/client/src/index.ts"],
    bundle: true,
    platform: "browser",
    format: "iife",
    globalName: "Gatehouse",
    // Evaluated, not loaded as a script: its top-level `var` would stay local without this.
    footer: { js: "globalThis.Gatehouse = Gatehouse" },
    conditions: ["@gatehouse-edge/source"],
    target: "es2022",
    write: false,
    logLevel: "silent"
  }).then((result) => result.outputFiles[0]!.text)
)

const password = "correct horse battery staple"

// What runs in the page. It is a string, not a function: it uses the bundle's global, which the tests' types do
// not know. Every step's outcome is collected and returned.
const scenario = `(async () => {
  const { createGatehouseClient } = globalThis.Gatehouse
  const client = createGatehouseClient({ baseUrl: location.origin })
  const out = {}
  const failure = (error) => ({ tag: error?._tag, message: error?.message })
  out.before = await client.access.whoami().then(() => "signed in?", failure)
  out.login = await client.login.login("alice", ${JSON.stringify(password)})
  out.whoami = await client.access.whoami()
  out.write = await client.files.write("routes", "added.yml", "added:\\n  host: 127.0.0.1\\n  port: 2\\n  healthcheck: { disable: true }\\n")
  out.routes = (await client.routes.list()).map((r) => r.alias).sort()
  for await (const health of client.health.watch()) { out.health = Object.keys(health).sort(); break }
  out.refused = await (async () => {
    try { for await (const _ of client.authRequests.watch("not-an-id")) return "opened" } catch (error) { return failure(error) }
  })()
  // A refused upgrade is fetched again as a plain GET to read why (above), but not the renewal's: that GET would
  // renew (twice, or where only the upgrade failed). Its failure says so instead of why.
  out.renewRefused = await (async () => {
    try { for await (const _ of client.certs.renewWithProgress()) return "opened" } catch (error) { return failure(error) }
  })()
  out.logout = await client.login.logout()
  out.after = await client.access.whoami().then(() => "still signed in", failure)
  await client.close()
  return out
})()`

describe.skipIf(skip)("the client in a browser page", () => {
  it.live(
    "signs in, calls the API with the cookie (CSRF header added), follows a stream, decodes refusals, signs out",
    () =>
      Effect.gen(function* () {
        const hash = yield* hashPassword(password)
        const server = yield* startTestServer({
          routeFiles: { "web.yml": "web:\n  host: 127.0.0.1\n  port: 1\n  healthcheck: { disable: true }\n" },
          configYaml: `auth:\n  users:\n    - { name: alice, password_hash: "${hash}" }\n`
        })
        const code = yield* bundle
        const browser = yield* launchChromium
        const page = yield* Effect.promise(() => browser.context.newPage())
        yield* Effect.promise(() => page.goto(`${server.origin}/login`))
        // Evaluated through the DevTools protocol: the login page's CSP (no inline scripts) does not apply.
        yield* Effect.promise(() => page.evaluate(code))
        const out = (yield* Effect.promise(() => page.evaluate(scenario))) as Record<string, any>

        assert.strictEqual(out.before.tag, "Unauthenticated")
        assert.strictEqual(out.login.subject, "user:alice")
        assert.deepStrictEqual([out.whoami.method, out.whoami.subject], ["session", "user:alice"])
        assert.strictEqual(out.write.filename, "added.yml", "a PUT with the cookie: only possible with the CSRF header")
        assert.includeMembers(out.routes, ["added", "web"])
        assert.includeMembers(out.health, ["web"])
        assert.strictEqual(out.refused.tag, "InvalidArgument", "a refused upgrade decoded as the endpoint's error")
        assert.strictEqual(out.renewRefused.tag, "HttpClientError", JSON.stringify(out.renewRefused))
        assert.include(out.renewRefused.message, "not asked again as a GET, which would act")
        assert.deepStrictEqual(out.logout, { message: "signed out" })
        assert.strictEqual(out.after.tag, "Unauthenticated")
        assert.deepStrictEqual(browser.offLoopback, [])
      }).pipe(Effect.scoped),
    60_000
  )
})
