import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { createGatehouseClient, FilePreconditionFailed } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { startTestServer } from "../../../test/support/TestServer.js"
import { clientFor, routeFile } from "./support/Clients.js"

const query = { type: "routes", filename: "app.yml" } as const

describe("file versions in the clients (ETag, If-Match)", () => {
  it.live("Effect client: an editor's write with the ETag it read fails typed once another edit came first", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const read = yield* client.files.readWithEtag({ query })
      assert.strictEqual(read.content, routeFile("app"))
      assert.match(read.etag ?? "", /^"[0-9a-f]{64}"$/)
      const mine = yield* client.files.writeWithEtag({
        query,
        payload: routeFile("app", 10),
        headers: { "if-match": read.etag! }
      })
      assert.strictEqual(mine.written.filename, "app.yml")
      assert.strictEqual(mine.etag, (yield* client.files.readWithEtag({ query })).etag)
      // A second editor still holding the first version is refused; the first edit stays.
      const stale = yield* Effect.flip(
        client.files.write({ query, payload: routeFile("app", 11), headers: { "if-match": read.etag! } })
      )
      assert.instanceOf(stale, FilePreconditionFailed)
      assert.strictEqual(fs.readFileSync(path.join(server.routesDir, "app.yml"), "utf8"), routeFile("app", 10))
      // The next save of the first editor goes ahead with the version it wrote; a plain write still does too.
      yield* client.files.write({ query, payload: routeFile("app", 12), headers: { "if-match": mine.etag! } })
      yield* client.files.write({ query, payload: routeFile("app", 13) })
    }).pipe(Effect.scoped)
  )

  it.live("promise client: readWithEtag, then write with ifMatch; ifNoneMatch: * only creates", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      yield* Effect.acquireUseRelease(
        Effect.sync(() => createGatehouseClient({ baseUrl: server.baseUrl, apiKey: server.apiKey })),
        (client) =>
          Effect.promise(async () => {
            const { etag } = await client.files.readWithEtag("routes", "app.yml")
            const saved = await client.files.writeWithEtag("routes", "app.yml", routeFile("app", 10), { ifMatch: etag })
            const stale = await client.files.write("routes", "app.yml", routeFile("app", 11), { ifMatch: etag }).then(
              () => undefined,
              (error: unknown) => error
            )
            assert.instanceOf(stale, FilePreconditionFailed)
            await client.files.write("routes", "app.yml", routeFile("app", 12), { ifMatch: saved.etag })
            await client.files.write("routes", "web.yml", routeFile("web"), { ifNoneMatch: "*" })
            const taken = await client.files.write("routes", "web.yml", routeFile("web"), { ifNoneMatch: "*" }).then(
              () => undefined,
              (error: unknown) => error
            )
            assert.instanceOf(taken, FilePreconditionFailed)
          }),
        (client) => Effect.promise(() => client.close())
      )
      assert.strictEqual(fs.readFileSync(path.join(server.routesDir, "app.yml"), "utf8"), routeFile("app", 12))
    }).pipe(Effect.scoped)
  )
})
