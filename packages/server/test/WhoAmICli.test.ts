import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { startTestServer } from "../../../test/support/TestServer.js"
import { cliAgainst } from "./support/CliAgainst.js"

// `gatehouse whoami` as an operator runs it: a separate process calling a real server's HTTP API (in this
// process), its answer compared with what the typed client gets for the same key.

describe("gatehouse whoami", () => {
  it.live("says which key the CLI uses, its scopes and expiry, and the server's version; a refused key exits 1", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({})
      const admin = yield* Effect.service(GatehouseClient).pipe(
        Effect.provide(GatehouseClient.layer({ baseUrl: server.baseUrl, apiKey: server.apiKey }))
      )
      const created = yield* admin.access.createApiKey({
        payload: { name: "reader", scopes: ["routes:read", "events:read"], expires_in_s: 3600 }
      })
      const reader = cliAgainst({ ...server, apiKey: created.key })

      const json = yield* reader(["whoami", "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      const readerClient = yield* Effect.service(GatehouseClient).pipe(
        Effect.provide(GatehouseClient.layer({ baseUrl: server.baseUrl, apiKey: created.key }))
      )
      assert.deepStrictEqual(JSON.parse(json.stdout), {
        principal: yield* readerClient.access.whoami(),
        server: yield* readerClient.system.version()
      })

      const text = yield* reader(["whoami"])
      assert.strictEqual(text.code, 0, text.stderr)
      const lines = text.stdout.trimEnd().split("\n")
      assert.strictEqual(lines[0], "api-key:reader (api_key)")
      assert.strictEqual(lines[2], "scopes:  routes:read, events:read")
      assert.strictEqual(
        lines[3],
        `api key: gh_${created.api_key.prefix}_…, expires ${created.api_key.expires_at ?? "never"}`
      )
      assert.match(lines[4]!, /^server: {2}gatehouse \S+ \(\S+\)$/)

      yield* admin.access.revokeApiKey({ params: { name: "reader" } })
      const refused = yield* reader(["whoami"])
      assert.strictEqual(refused.code, 1)
      assert.match(refused.stderr, /^gatehouse: missing or invalid API key/)
    }).pipe(Effect.scoped)
  )
})
