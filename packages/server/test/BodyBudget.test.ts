import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { request } from "../../transport-http/test/support/Http.js"

const MiB = 1024 * 1024

// The bytes request bodies may hold while they are read come from `http.limits.bodies_in_flight[_per_client]`,
// and their defaults grow with `http.max_body`: a body the server accepts must fit.
describe("gatehouse serve: the request bodies' budgets", () => {
  it.live(
    "a body under a raised max_body is read, not refused as if the server were busy; a set budget is applied",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir("gatehouse-bodies-")
          fs.writeFileSync(path.join(dir, "gatehouse.yml"), "http: { max_body: 24MiB }\n")
          const server = yield* spawnServer(["--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], { cwd: dir })
          const key = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
          const newKeyOf = (bytes: number) =>
            request(`${server.baseUrl}/apikeys`, {
              method: "POST",
              key,
              contentType: "application/json",
              body: JSON.stringify({ name: "x".repeat(bytes), scopes: ["events:read"] })
            })
          // 20 MiB: over the 16 MiB a client's bodies held by default, under max_body. Read, and found invalid.
          const large = yield* newKeyOf(20 * MiB)
          assert.strictEqual(large.status, 400, JSON.stringify(large.json).slice(0, 300))
          assert.strictEqual((yield* server.stop()).code, 0)

          // A budget set smaller than max_body is a config error naming the key, not a server that refuses bodies.
          fs.writeFileSync(
            path.join(dir, "gatehouse.yml"),
            "http: { max_body: 24MiB, limits: { bodies_in_flight_per_client: 8MiB } }\n"
          )
          const refused = yield* spawnServer(["--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0"], {
            cwd: dir
          }).pipe(Effect.flip)
          assert.include(refused.stderr, "http.limits.bodies_in_flight_per_client: 8 MiB cannot hold one body")
        })
      ),
    60_000
  )
})
