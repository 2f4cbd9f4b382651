import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { Database } from "../packages/core/src/store/SqliteDriver.js"
import { request } from "../packages/transport-http/test/support/Http.js"
import { spawnServer } from "./support/Cli.js"
import { tempDir } from "./support/TempDir.js"

// Another process holds the store's write lock: the sqlite3 shell left in a transaction, a backup tool. The server
// waits for it (5 s) without standing still, then answers what is wrong instead of a bare 500.

const newKey = (baseUrl: string, key: string, name: string) =>
  request(`${baseUrl}/apikeys`, {
    method: "POST",
    key,
    contentType: "application/json",
    body: JSON.stringify({ name, scopes: ["events:read"] })
  })

describe("a store another process has locked", () => {
  it.live(
    "a write waits without holding up other requests or reads, then answers 503 saying so; works once released",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir("gatehouse-locked-")
          const server = yield* spawnServer(["--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], { cwd: dir })
          const key = (yield* Effect.promise(() =>
            import("node:fs/promises").then((fs) => fs.readFile(path.join(dir, "data", "admin.key"), "utf8"))
          )).trim()
          // Verified (and its use recorded) before the lock, as a client that has been talking to the server is.
          assert.strictEqual((yield* request(`${server.baseUrl}/health`, { key })).status, 200)
          const other = new Database(path.join(dir, "data", "gatehouse.db"))
          yield* Effect.addFinalizer(() => Effect.sync(() => other.close()))
          other.exec("BEGIN IMMEDIATE")

          const write = yield* Effect.forkChild(newKey(server.baseUrl, key, "while-locked"))
          // The server answers what needs no store meanwhile: SQLite's own wait would hold its thread for the whole 5 s.
          const health = yield* request(`${server.baseUrl}/health`, { key })
          assert.strictEqual(health.status, 200)
          assert.isUndefined(write.pollUnsafe(), "the health check was answered while the write still waited")
          // So is what only reads the store: a query does not wait for the writer (WAL lets it read the last commit).
          const keys = yield* request(`${server.baseUrl}/apikeys`, { key })
          assert.strictEqual(keys.status, 200)
          assert.isUndefined(write.pollUnsafe(), "the key list was answered while the write still waited")

          const refused = yield* Fiber.join(write)
          assert.strictEqual(refused.status, 503)
          assert.strictEqual(refused.headers.get("retry-after"), "5")
          const error = (refused.json as { error: { code: string; message: string; request_id?: string } }).error
          assert.strictEqual(error.code, "unavailable")
          assert.strictEqual(error.message, "the server's store is locked by another process: try again shortly")
          assert.isString(error.request_id)

          other.exec("ROLLBACK")
          const created = yield* newKey(server.baseUrl, key, "after-release")
          assert.strictEqual(created.status, 201)
          yield* server.stop()
        })
      )
  )
})
