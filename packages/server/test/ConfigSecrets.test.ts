import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli, spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { openWs, request, sendYaml } from "../../transport-http/test/support/Http.js"

const dir = tempDir("gatehouse-secrets-")

const FIRST = "11111111-aaaa-4bbb-8ccc-000000000001"
const SECOND = "22222222-aaaa-4bbb-8ccc-000000000002"
// Each test fails if one of these shows up in any output it reads.
const SECRETS = ["12345678-SECRET", "hunter2-SECRET-HASH", "987654321", "SECRET-FROM-ENV", FIRST, SECOND]
const assertNoSecret = (what: string, text: string) => {
  for (const secret of SECRETS) assert.notInclude(text, secret, `${what} shows a secret`)
}

const badSecrets = `
auth:
  users: [{ name: admin, password_hash: hunter2-SECRET-HASH }]
  oidc: { issuer: https://idp.example, client_id: gh, client_secret: 987654321 }
hypervisor:
  clusters:
    - { name: a, url: https://h:8006, token_id: a@pam!b, secret: 12345678-SECRET }
    - { name: b, url: https://h:8006, token_id: a@pam!b, secret: "\${PVE_SECRET}" }
`

const goodSecrets = (secret: string) => `routes_dir: ./routes
hypervisor:
  clusters:
    - { name: pve, url: https://h:8006, token_id: a@pam!b, secret: ${secret} }
`

describe("secrets never reach an output", () => {
  it.live("gatehouse serve and gatehouse validate --config report bad secrets by key, as <redacted>", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const cwd = yield* dir
        fs.writeFileSync(path.join(cwd, "gatehouse.yml"), badSecrets)
        const env = { PVE_SECRET: "SECRET-FROM-ENV" }
        const serve = yield* runCli(["serve", "--http", "127.0.0.1:0"], { cwd, env })
        assert.strictEqual(serve.code, 1)
        assert.include(serve.stderr, "gatehouse.yml:4:70: auth.oidc.client_secret: expected string, got <redacted>")
        assert.include(
          serve.stderr,
          "gatehouse.yml:7:66: hypervisor.clusters.0.secret: expected the API token's secret"
        )
        assert.include(
          serve.stderr,
          "gatehouse.yml:8:66: hypervisor.clusters.1.secret: expected the API token's secret"
        )
        assertNoSecret("serve", serve.stdout + serve.stderr)

        const validate = yield* runCli(["validate", "--config", "gatehouse.yml"], { cwd, env })
        assert.strictEqual(validate.code, 1)
        assert.include(validate.stderr, "4 problems found")
        assertNoSecret("validate", validate.stdout + validate.stderr)
      })
    )
  )

  it.live(
    "a running server: 422 bodies, config/reload and config/error events and its log lines name keys, never values",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const cwd = yield* dir
          const configFile = path.join(cwd, "gatehouse.yml")
          fs.writeFileSync(configFile, goodSecrets(FIRST))
          const server = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd, env: { PVE_SECRET: "SECRET-FROM-ENV" } })
          const key = fs.readFileSync(path.join(cwd, "data", "admin.key"), "utf8").trim()
          const events = yield* openWs(`${server.baseUrl.replace("http", "ws")}/events?category=config`, { key })

          const validate = yield* sendYaml(`${server.baseUrl}/file/validate?type=config`, key, badSecrets)
          assert.strictEqual(validate.status, 422)
          assert.include(validate.text, "<redacted>")
          assertNoSecret("the 422 body of POST /file/validate", validate.text)
          // A variable referenced under a key that is not a secret's is not read back either...
          const underAnyKey = yield* sendYaml(
            `${server.baseUrl}/file/validate?type=config`,
            key,
            'http: { addr: "${PVE_SECRET}" }\n'
          )
          assert.strictEqual(underAnyKey.status, 422)
          assert.include(underAnyKey.text, 'got \\"${PVE_SECRET}\\"')
          assertNoSecret("the 422 body of a variable under http.addr", underAnyKey.text)
          // ...and checking a config (which reads the server's environment) takes what reading it takes: admin.
          const created = yield* request(`${server.baseUrl}/apikeys`, {
            method: "POST",
            key,
            contentType: "application/json",
            body: JSON.stringify({ name: "files-reader", scopes: ["files:read"] })
          })
          assert.strictEqual(created.status, 201, created.text)
          const reader: string = created.json.key
          const refused = yield* sendYaml(`${server.baseUrl}/file/validate?type=config`, reader, "log: {}\n")
          assert.strictEqual(refused.status, 403)
          assert.deepStrictEqual(refused.json.error.details, [{ reason: "MissingScope", scope: "admin" }])
          const routes = yield* sendYaml(`${server.baseUrl}/file/validate?type=routes`, reader, "app: { port: 8080 }\n")
          assert.strictEqual(routes.status, 200, routes.text)
          const write = yield* sendYaml(
            `${server.baseUrl}/file/content?type=config&filename=gatehouse.yml`,
            key,
            badSecrets,
            { method: "PUT" }
          )
          assert.strictEqual(write.status, 422)
          assertNoSecret("the 422 body of PUT /file/content", write.text)

          fs.writeFileSync(configFile, goodSecrets(SECOND))
          const reload = yield* events.until((e) => e.action === "reload" && e.data.source === "config")
          assert.deepStrictEqual(reload.data.changed, ["hypervisor.clusters"])
          fs.writeFileSync(configFile, badSecrets)
          const error = yield* events.until((e) => e.action === "error" && e.data.source === "config")
          assert.deepInclude(error.data.issues[0], { path: ["auth", "users", 0, "password_hash"], line: 3 })
          const history = yield* request(`${server.baseUrl}/events?category=config`, { key })
          assertNoSecret("the config events", history.text)

          const stopped = yield* server.stop()
          assert.strictEqual(stopped.code, 0, stopped.stderr)
          assert.include(stopped.stdout, "rejected; the running configuration stays")
          assert.include(stopped.stdout, "hypervisor.clusters.0.secret")
          assertNoSecret("the server's log", stopped.stdout + stopped.stderr)
        })
      ),
    60_000
  )
})
