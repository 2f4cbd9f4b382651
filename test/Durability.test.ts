import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Random } from "effect"
import { openWs, request } from "../packages/transport-http/test/support/Http.js"
import { spawnServer } from "./support/Cli.js"
import { tempDir } from "./support/TempDir.js"
import { labelOf, testEvent } from "./support/TestEvents.js"
import { startTestServer } from "./support/TestServer.js"

// Cases an adversarial run found to hold; kept here so they keep holding.

/** A route file of `n` routes whose every line names `tag`, so a file mixed from two versions is detectable. */
const routeFile = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${tag}-${i}:\n  host: 127.0.0.1\n  port: ${1000 + (i % 60000)}\n`).join("")

const isOneVersion = (text: string, versions: ReadonlyArray<string>) => versions.includes(text)

describe("what held under an adversarial run", () => {
  it.live(
    "a SIGKILL during writes leaves every route file either old or new, and the server starts again (26 kills)",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* tempDir("gatehouse-kill-")
          fs.mkdirSync(path.join(dir, "routes"))
          const initial = routeFile("v0", 500)
          fs.writeFileSync(path.join(dir, "routes", "big.yml"), initial)
          const written = [initial]
          for (let kill = 1; kill <= 26; kill++) {
            const server = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
            const key = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
            const next = routeFile(`v${kill}`, 500)
            written.push(next)
            // Start a write and kill the server at a random point of it (or just after).
            const put = request(`${server.baseUrl}/file/content?type=routes&filename=big.yml`, {
              method: "PUT",
              key,
              body: next,
              contentType: "application/yaml"
            })
            const fiber = yield* Effect.forkChild(put)
            yield* Effect.sleep(yield* Random.nextIntBetween(0, 40))
            server.child.kill("SIGKILL")
            yield* Effect.promise(() => server.exited)
            yield* Effect.ignore(Fiber.await(fiber))
            const text = fs.readFileSync(path.join(dir, "routes", "big.yml"), "utf8")
            assert.isTrue(isOneVersion(text, written), `kill ${kill}: the file is a mix of versions`)
          }
          // Temp files of interrupted writes are cleaned up by the next start, and the routes load.
          const last = yield* spawnServer(["--http", "127.0.0.1:0"], { cwd: dir })
          const key = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
          assert.deepStrictEqual(
            fs.readdirSync(path.join(dir, "routes")).filter((name) => name.endsWith(".tmp")),
            []
          )
          const list = yield* request(`${last.baseUrl}/route/list`, { key })
          assert.strictEqual(list.json.length, 500)
          yield* last.stop()
        })
      ),
    240_000
  )

  it.live(
    "200 concurrent PUTs to one file: every answer is 200, the file is exactly one of them, the table matches it",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* startTestServer({ routeFiles: { "one.yml": routeFile("start", 5) } })
          const bodies = Array.from({ length: 200 }, (_, i) => routeFile(`w${i}`, 5))
          const replies = yield* Effect.forEach(
            bodies,
            (body) =>
              request(`${server.baseUrl}/file/content?type=routes&filename=one.yml`, {
                method: "PUT",
                key: server.apiKey,
                body,
                contentType: "application/yaml"
              }),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual([...new Set(replies.map((r) => r.status))], [200])
          const text = fs.readFileSync(path.join(server.routesDir, "one.yml"), "utf8")
          assert.isTrue(isOneVersion(text, bodies))
          const tag = /^(w\d+)-0:/.exec(text)![1]
          const list = yield* request(`${server.baseUrl}/route/list`, { key: server.apiKey })
          assert.deepStrictEqual(
            list.json.map((r: { alias: string }) => r.alias),
            Array.from({ length: 5 }, (_, i) => `${tag}-${i}`)
          )
          assert.deepStrictEqual(
            fs.readdirSync(server.routesDir).filter((name) => name.endsWith(".tmp")),
            []
          )
        })
      ),
    120_000
  )

  it.live(
    "500 concurrent /events clients each get the history and every live event",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* startTestServer()
          const clients = yield* Effect.forEach(
            Array.from({ length: 500 }),
            () => openWs(`${server.wsUrl}/events?category=health`, { key: server.apiKey }),
            { concurrency: 50 }
          )
          // The history is empty, so what each client receives is exactly what the bus publishes from now on.
          yield* server.events.publish(testEvent("first", "health"))
          yield* server.events.publish(testEvent("second", "health"))
          for (const client of clients) {
            const first = JSON.parse(yield* client.next())
            const second = JSON.parse(yield* client.next())
            assert.deepStrictEqual([labelOf(first), labelOf(second)], ["first", "second"])
          }
        })
      ),
    120_000
  )
})
