import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { startTestServer } from "../../../test/support/TestServer.js"
import { openWs, request } from "../../transport-http/test/support/Http.js"

// A real target whose health the test flips: 200 while `up`, 503 otherwise.
const startTarget = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ server: http.Server; port: number; state: { up: boolean } }>((resolve) => {
        const state = { up: true }
        const server = http.createServer((_req, res) => {
          res.writeHead(state.up ? 200 : 503)
          res.end()
        })
        server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as AddressInfo).port, state }))
      })
  ),
  ({ server }) => Effect.promise(() => new Promise((resolve) => server.close(resolve)))
)

describe("health, end to end", () => {
  it.live(
    "real monitors report a target's status over HTTP and WebSocket, with health/down and health/up events",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const target = yield* startTarget
          const server = yield* startTestServer({
            routeFiles: {
              "main.yml": `web:\n  host: 127.0.0.1\n  port: ${target.port}\n  healthcheck: { path: /ping, interval: 1s, timeout: 1s, retries: 0 }\n`
            }
          })
          const health = yield* openWs(`${server.wsUrl}/health`, { key: server.apiKey })
          const up = yield* health.until((map) => map.web?.status === "healthy")
          assert.isAtLeast(up.web.latency_ms, 0)

          const snapshot = yield* request(`${server.baseUrl}/health`, { key: server.apiKey })
          assert.strictEqual(snapshot.json.web.status, "healthy")
          assert.isString(snapshot.json.web.last_check)

          const events = yield* openWs(`${server.wsUrl}/events?category=health`, { key: server.apiKey })
          target.state.up = false
          yield* health.until((map) => map.web?.status === "unhealthy")
          const down = yield* events.until((e) => e.action === "down")
          assert.deepStrictEqual([down.level, down.data.alias, down.data.status], ["warn", "web", "unhealthy"])

          target.state.up = true
          yield* health.until((map) => map.web?.status === "healthy")
          const recovered = yield* events.until((e) => e.action === "up")
          assert.deepStrictEqual([recovered.level, recovered.data.previous], ["info", "unhealthy"])
        })
      ),
    30_000
  )

  it.live(
    "the route list stream sends one new list for one route file change, never the unchanged list first",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* startTestServer({
            routeFiles: { "a.yml": "one:\n  host: 127.0.0.1\n  port: 1\n  healthcheck: { disable: true }\n" }
          })
          const list = yield* openWs(`${server.wsUrl}/route/list`, { key: server.apiKey })
          yield* list.next()
          fs.writeFileSync(
            path.join(server.routesDir, "b.yml"),
            "two:\n  host: 127.0.0.1\n  port: 2\n  healthcheck: { disable: true }\n"
          )
          const second = JSON.parse(yield* list.next())
          assert.deepStrictEqual(
            second.map((r: { alias: string }) => r.alias),
            ["one", "two"]
          )
        })
      ),
    30_000
  )
})
