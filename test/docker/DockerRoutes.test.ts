import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { startDockerd } from "../support/Dockerd.js"
import { requireTool } from "../support/e2e.js"
import { startTestServer } from "../support/TestServer.js"
import { waitFor } from "../support/WaitFor.js"

// Routes from container labels, end to end: a real dockerd, the real server composition, a container serving HTTP
// on a free loopback port (NetworkMode host) so its route's health check really runs.

const dockerd = requireTool("dockerd")

const freePort = () =>
  Effect.promise(
    () =>
      new Promise<number>((resolve) => {
        const server = net.createServer()
        server.listen(0, "127.0.0.1", () => {
          const port = (server.address() as net.AddressInfo).port
          server.close(() => resolve(port))
        })
      })
  )

describe.skipIf(dockerd.skip)(
  "routes from Docker labels",
  // Each test starts its own dockerd (a few seconds) and real containers.
  { timeout: 90_000 },
  () => {
    it.live(
      "a labelled container's routes join the table and are health-checked; a bad label drops only its route; stopping removes them and is an event",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const engine = yield* startDockerd
            const server = yield* startTestServer({
              configYaml: `docker:\n  hosts:\n    - { name: local, url: "unix://${engine.socket}" }\n`
            })
            const key = server.apiKey
            const url = (p: string) => `${server.baseUrl}${p}`
            const port = yield* freePort()
            yield* engine.run("web", {
              Cmd: ["httpd", "-f", "-p", `127.0.0.1:${port}`, "-h", "/www"],
              HostConfig: { NetworkMode: "host" },
              Labels: {
                "proxy.aliases": "web,api",
                "proxy.web.port": String(port),
                // Explicit: a free port ending in 443 would otherwise default the scheme to https (SPEC §2).
                "proxy.web.scheme": "http",
                "proxy.web.healthcheck": "{interval: 1s}",
                "proxy.api.port": "99999"
              }
            })
            const routes = yield* waitFor(
              request(url("/route/list"), { key }),
              (r) => r.json.some((route: { alias: string }) => route.alias === "web"),
              "the container's route"
            )
            const web = routes.json.find((route: { alias: string }) => route.alias === "web")
            assert.deepInclude(web, { provider: "docker:local", host: "127.0.0.1", scheme: "http" })
            assert.strictEqual(web.port.target, port)
            assert.isUndefined(
              routes.json.find((route: { alias: string }) => route.alias === "api"),
              "the bad label's route is left out"
            )
            const errors = yield* request(url("/events?category=config"), { key })
            assert.isTrue(
              JSON.stringify(errors.json).includes("proxy.api.port"),
              "the bad label is reported by name in a config/error event"
            )
            yield* waitFor(
              request(url("/health"), { key }),
              (r) => r.json.web?.status === "healthy",
              "the route's health check to pass"
            )
            const containers = yield* request(url("/docker/containers"), { key })
            assert.deepStrictEqual(containers.json[0].routes, ["web", "api"])

            assert.strictEqual(
              (yield* request(url("/docker/containers/web/stop"), { key, method: "POST" })).status,
              200
            )
            yield* waitFor(
              request(url("/route/list"), { key }),
              (r) => !r.json.some((route: { alias: string }) => route.alias === "web"),
              "the route to leave with the container",
              5_000
            )
            const dockerEvents = yield* waitFor(
              request(url("/events?category=docker"), { key }),
              (r) => r.json.some((e: { action: string }) => e.action === "die"),
              "the die event"
            )
            const actions = dockerEvents.json.map(
              (e: { action: string; data: { name: string } }) => `${e.action}:${e.data.name}`
            )
            assert.includeMembers(actions, ["start:web", "stop:web", "die:web"])
          })
        )
    )
  }
)
