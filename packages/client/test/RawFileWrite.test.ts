import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { FilePreconditionFailed } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { startTestServer } from "../../../test/support/TestServer.js"
import { clientFor, routeFile } from "./support/Clients.js"

const query = { type: "routes", filename: "app.yml" } as const

describe("the derived client's file write", () => {
  it.live("takes no headers: a write without conditions is the plain call; the typed calls still send them", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const file = path.join(server.routesDir, "app.yml")
      // Type-checked as written: `headers` is not required (`npm run typecheck` covers the tests).
      const written = yield* client.api.files.write({ query, payload: routeFile("app", 10) })
      assert.strictEqual(written.filename, "app.yml")
      assert.strictEqual(fs.readFileSync(file, "utf8"), routeFile("app", 10))
      const [, response] = yield* client.api.files.write({
        query,
        payload: routeFile("app", 11),
        responseMode: "decoded-and-response"
      })
      assert.match(response.headers.etag ?? "", /^"[0-9a-f]{64}"$/)
      // The conditions of the typed calls reach the server: a stale version is refused, and nothing is written.
      const stale = { "if-match": '"0000"' }
      assert.instanceOf(
        yield* Effect.flip(client.files.write({ query, payload: routeFile("app", 12), headers: stale })),
        FilePreconditionFailed
      )
      assert.instanceOf(
        yield* Effect.flip(client.files.writeWithEtag({ query, payload: routeFile("app", 13), headers: stale })),
        FilePreconditionFailed
      )
      assert.strictEqual(fs.readFileSync(file, "utf8"), routeFile("app", 11))
      const saved = yield* client.files.writeWithEtag({
        query,
        payload: routeFile("app", 14),
        headers: { "if-match": response.headers.etag! }
      })
      assert.strictEqual(saved.written.filename, "app.yml")
      assert.strictEqual(fs.readFileSync(file, "utf8"), routeFile("app", 14))
    }).pipe(Effect.scoped)
  )
})
