import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { authServiceEffectClient, makeAuthServiceClient } from "@gatehouse-edge/transport-grpc/client"
import { Effect } from "effect"
import { startTestServer, type TestServer } from "../../../test/support/TestServer.js"
import { Database } from "../../core/src/store/SqliteDriver.js"
import { request } from "../../transport-http/test/support/Http.js"

const grpcWith = (server: TestServer, apiKey: string) =>
  Effect.acquireRelease(
    Effect.sync(() => makeAuthServiceClient({ address: server.grpcAddress, apiKey, insecure: true })),
    (client) => Effect.sync(() => client.close())
  ).pipe(Effect.map(authServiceEffectClient))

const createKey = (server: TestServer, body: object, key = server.apiKey) =>
  request(`${server.baseUrl}/apikeys`, {
    method: "POST",
    key,
    contentType: "application/json",
    body: JSON.stringify(body)
  })

const sshCheck = { kind: "ssh_check", ssh_check: { src: "10.0.0.1", dst: "db1", local_user: "root" } } as const

describe("API keys for scripts", () => {
  it.live("a key holds exactly its scopes: others get 403 naming the missing scope, on HTTP and gRPC", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const created = yield* createKey(server, { name: "reader", scopes: ["routes:read", "auth_requests:read"] })
        assert.strictEqual(created.status, 201, created.text)
        const key: string = created.json.key
        assert.match(key, /^gh_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/)
        assert.deepStrictEqual(created.json.api_key.scopes, ["routes:read", "auth_requests:read"])

        assert.strictEqual((yield* request(`${server.baseUrl}/route/list`, { key })).status, 200)
        const health = yield* request(`${server.baseUrl}/health`, { key })
        assert.strictEqual(health.status, 403)
        assert.deepStrictEqual(health.json.error.details, [{ reason: "MissingScope", scope: "health:read" }])
        assert.match(health.json.error.message, /"health:read"/)
        const write = yield* request(`${server.baseUrl}/file/content?type=routes&filename=a.yml`, {
          method: "PUT",
          key,
          contentType: "application/yaml",
          body: "a:\n  port: 80\n"
        })
        assert.strictEqual(write.status, 403)
        assert.match(write.json.error.message, /"files:write"/)
        const keys = yield* createKey(server, { name: "escalate", scopes: ["admin"] }, key)
        assert.strictEqual(keys.status, 403, "managing keys needs admin")

        const admin = yield* grpcWith(server, server.apiKey)
        const pending = yield* admin.create(sshCheck)
        const reader = yield* grpcWith(server, key)
        assert.strictEqual((yield* reader.get(pending.auth_id)).state, "pending", "auth_requests:read may read")
        const denied = yield* Effect.flip(reader.approve(pending.auth_id))
        assert.strictEqual(denied.statusName, "PERMISSION_DENIED")
        assert.match(denied.message, /"auth_requests:write"/)
        assert.strictEqual((yield* admin.get(pending.auth_id)).state, "pending", "nothing was decided")
      })
    )
  )

  it.live("the config file is admin's alone: files:read and files:write reach route files, not the config", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // The config holds the users' password hashes and the secrets, and its `auth` section says who is admin.
        const configYaml =
          'auth:\n  oidc:\n    issuer: "https://127.0.0.1:1/"\n    client_id: x\n    client_secret: "S3CRET-XYZ"\n' +
          "    allowed_groups: [admins]\n"
        const server = yield* startTestServer({ configYaml })
        const created = yield* createKey(server, { name: "files", scopes: ["files:write"] })
        assert.strictEqual(created.status, 201, created.text)
        const key: string = created.json.key
        const file = (type: string, filename: string) =>
          `${server.baseUrl}/file/content?type=${type}&filename=${encodeURIComponent(filename)}`
        const write = (type: string, filename: string, body: string, asKey = key) =>
          request(file(type, filename), { method: "PUT", key: asKey, contentType: "application/yaml", body })

        assert.strictEqual((yield* write("routes", "a.yml", "a:\n  port: 80\n")).status, 200, "route files: yes")
        assert.strictEqual((yield* request(file("routes", "a.yml"), { key })).status, 200)

        const read = yield* request(file("config", "gatehouse.yml"), { key })
        assert.strictEqual(read.status, 403)
        assert.deepStrictEqual(read.json.error.details, [{ reason: "MissingScope", scope: "admin" }])
        assert.notInclude(read.text, "S3CRET-XYZ")
        const rewrite = yield* write("config", "gatehouse.yml", "log:\n  level: debug\n")
        assert.strictEqual(rewrite.status, 403)
        assert.deepStrictEqual(rewrite.json.error.details, [{ reason: "MissingScope", scope: "admin" }])

        const asAdmin = yield* request(file("config", "gatehouse.yml"), { key: server.apiKey })
        assert.strictEqual(asAdmin.status, 200)
        assert.strictEqual(asAdmin.text, configYaml, "the refused write changed nothing")
      })
    )
  )

  it.live("the key is shown once; listings show its prefix, scopes and last use, never the key or its hash", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const created = yield* createKey(server, { name: "ci", scopes: ["health:read"], expires_in_s: 86_400 })
        const key: string = created.json.key
        assert.strictEqual((yield* request(`${server.baseUrl}/health`, { key })).status, 200)
        const list = yield* request(`${server.baseUrl}/apikeys`, { key: server.apiKey })
        assert.strictEqual(list.status, 200)
        assert.notInclude(list.text, key)
        assert.notInclude(list.text, key.slice(12))
        assert.notMatch(list.text, /[0-9a-f]{64}/, "no hash")
        const ci = list.json.find((k: { name: string }) => k.name === "ci")
        assert.strictEqual(ci.prefix, key.slice(3, 11))
        assert.deepStrictEqual(ci.scopes, ["health:read"])
        assert.isString(ci.last_used_at, "its use was recorded")
        assert.strictEqual(Date.parse(ci.expires_at) - Date.parse(ci.created_at), 86_400_000)
        assert.deepStrictEqual(
          list.json.map((k: { name: string }) => k.name),
          ["admin", "ci"]
        )
        const events = yield* server.events.history({ category: "api_key" })
        assert.deepStrictEqual(
          events.map((e) => [e.action, (e.data as { name: string }).name]),
          [["created", "ci"]]
        )
      })
    )
  )

  it.live("bad requests: a taken name is 409, an unknown scope or a bad name is 400", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        assert.strictEqual((yield* createKey(server, { name: "ci", scopes: ["routes:read"] })).status, 201)
        const taken = yield* createKey(server, { name: "ci", scopes: ["routes:read"] })
        assert.strictEqual(taken.status, 409)
        assert.strictEqual(taken.json.error.code, "already_exists")
        for (const body of [
          { name: "x", scopes: ["routes:delete"] },
          { name: "x", scopes: [] },
          { name: "Bad Name", scopes: ["routes:read"] },
          { name: "x", scopes: ["routes:read"], expires_in_s: 5 }
        ]) {
          const reply = yield* createKey(server, body)
          assert.strictEqual(reply.status, 400, JSON.stringify(body))
        }
      })
    )
  )

  it.live("a revoked key is refused at once on HTTP and gRPC, even right after it was used", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const key: string = (yield* createKey(server, { name: "temp", scopes: ["admin"] })).json.key
        const grpc = yield* grpcWith(server, key)
        assert.strictEqual((yield* request(`${server.baseUrl}/route/list`, { key })).status, 200)
        yield* grpc.list()
        const revoked = yield* request(`${server.baseUrl}/apikeys/temp`, { method: "DELETE", key: server.apiKey })
        assert.strictEqual(revoked.status, 200)
        assert.isString(revoked.json.revoked_at)
        const http = yield* request(`${server.baseUrl}/route/list`, { key })
        assert.strictEqual(http.status, 401)
        const rpc = yield* Effect.flip(grpc.list())
        assert.strictEqual(rpc.statusName, "UNAUTHENTICATED")
        const again = yield* request(`${server.baseUrl}/apikeys/temp`, { method: "DELETE", key: server.apiKey })
        assert.strictEqual(again.status, 404)
        const events = yield* server.events.history({ category: "api_key" })
        assert.deepStrictEqual(events.at(-1)?.data, { name: "temp", by: "api-key:admin" })
      })
    )
  )

  it.live("an expired key is refused on HTTP and gRPC", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const key: string = (yield* createKey(server, { name: "short", scopes: ["admin"], expires_in_s: 60 })).json.key
        // Its minute has passed, as far as the store is concerned.
        const db = new Database(path.join(server.dataDir, "gatehouse.db"))
        db.prepare("UPDATE api_keys SET expires_at = ? WHERE name = 'short'").run(
          new Date(Date.now() - 1000).toISOString()
        )
        db.close()
        assert.strictEqual((yield* request(`${server.baseUrl}/route/list`, { key })).status, 401)
        const grpc = yield* grpcWith(server, key)
        assert.strictEqual((yield* Effect.flip(grpc.list())).statusName, "UNAUTHENTICATED")
      })
    )
  )
})
