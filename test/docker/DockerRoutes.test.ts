import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { requireTool } from "../support/e2e.js"
import { freePort } from "../support/FreePort.js"
import { waitFor } from "../support/WaitFor.js"
import { dockerWorld } from "./DockerWorld.js"

// Routes from container labels, end to end: a real dockerd, the real server composition, a container serving HTTP
// on a free loopback port (NetworkMode host) so its route's health check really runs.

const dockerd = requireTool("dockerd")

describe.skipIf(dockerd.skip)(
  "routes from Docker labels",
  // Each test starts its own dockerd (a few seconds) and real containers.
  { timeout: 90_000 },
  () => {
    it.live(
      "a labelled container's routes join the table and are health-checked; a bad label drops only its route; its alias names it; stopping keeps the route, down, with an event",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const { engine, url, key } = yield* dockerWorld({
              routeFiles: { "files.yml": "plain:\n  host: 127.0.0.1\n  port: 9\n  healthcheck: { disable: true }\n" }
            })
            const port = yield* freePort
            const id = yield* engine.run("webapp", {
              Cmd: ["httpd", "-f", "-p", `127.0.0.1:${port}`, "-h", "/www"],
              HostConfig: { NetworkMode: "host" },
              // As PID 1, httpd ignores SIGTERM: the engine would wait its 10 s before killing it.
              StopSignal: "SIGKILL",
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

            // The route's alias names its container; a route that is no container's is a 400, not a 404.
            const stats = yield* request(url("/docker/stats/web"), { key })
            assert.strictEqual(stats.status, 200)
            assert.strictEqual(stats.json.id, id)
            const plain = yield* request(url("/docker/stats/plain"), { key })
            assert.strictEqual(plain.status, 400)
            assert.match(plain.json.error.message, /plain.*file:files\.yml.*not of a container/)

            assert.strictEqual(
              (yield* request(url("/docker/containers/web/stop"), { key, method: "POST" })).status,
              200
            )
            // The container still exists: its route stays, reported down from the container's state within a
            // second or so of the engine's event (no probe has to time out), and the fall is an event.
            const down = yield* waitFor(
              request(url("/health"), { key }),
              (r) => r.json.web?.status === "unhealthy",
              "the route to go down with its container",
              5_000
            )
            assert.strictEqual(down.json.web.latency_ms, 0)
            const listed = yield* request(url("/route/web"), { key })
            assert.strictEqual(listed.status, 200, "the stopped container's route is still listed")
            const health = yield* waitFor(
              request(url("/events?category=health"), { key }),
              (r) => r.json.some((e: { action: string; data: { alias: string } }) => e.action === "down"),
              "the health/down event"
            )
            const fall = health.json.find((e: { action: string }) => e.action === "down")
            assert.deepInclude(fall.data, { alias: "web", previous: "healthy", status: "unhealthy" })
            assert.match(fall.data.error, /container webapp is exited/)
            const dockerEvents = yield* waitFor(
              request(url("/events?category=docker"), { key }),
              (r) => r.json.some((e: { action: string }) => e.action === "die"),
              "the die event"
            )
            const actions = dockerEvents.json.map(
              (e: { action: string; data: { name: string } }) => `${e.action}:${e.data.name}`
            )
            assert.includeMembers(actions, ["start:webapp", "stop:webapp", "die:webapp"])
            const reloads = yield* request(url("/events?category=config"), { key })
            assert.isFalse(
              reloads.json.some(
                (e: { action: string; data: { changed?: Array<string>; removed?: Array<string> } }) =>
                  e.action === "reload" && [...(e.data.changed ?? []), ...(e.data.removed ?? [])].includes("web")
              ),
              "a container stopping changes no route: it is no config reload"
            )

            // Started again (by its alias): the route comes back up.
            assert.strictEqual(
              (yield* request(url("/docker/containers/web/start"), { key, method: "POST" })).status,
              200
            )
            yield* waitFor(
              request(url("/health"), { key }),
              (r) => r.json.web?.status === "healthy",
              "the route to come back up",
              5_000
            )
          })
        )
    )

    it.live("a container's HEALTHCHECK decides its route's health; an idlewatched stopped container is napping", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { engine, url, key } = yield* dockerWorld()
          // Healthy while /tmp/ok is not empty. The route's own target (port 9, nothing listens) would fail a probe:
          // healthy here proves the HEALTHCHECK, not a probe, decided.
          const checked = yield* engine.run("checked", {
            Cmd: ["sh", "-c", "echo ok > /tmp/ok; exec sleep 1000"],
            Healthcheck: {
              Test: ["CMD", "sh", "-c", "[ -s /tmp/ok ]"],
              Interval: 300_000_000,
              Timeout: 1_000_000_000,
              Retries: 1
            },
            Labels: { "proxy.checked.host": "127.0.0.1", "proxy.checked.port": "9" }
          })
          yield* engine.run("lazy", {
            Cmd: ["sleep", "1000"],
            StopSignal: "SIGKILL",
            Labels: {
              "proxy.lazy.host": "127.0.0.1",
              "proxy.lazy.port": "9",
              "proxy.lazy.idlewatcher": "{idle_timeout: 1h}"
            }
          })
          yield* waitFor(
            request(url("/health"), { key }),
            (r) => r.json.checked?.status === "healthy",
            "the HEALTHCHECK to pass",
            15_000
          )
          const exec = yield* engine.api("POST", `/containers/${checked}/exec`, { Cmd: ["sh", "-c", ": > /tmp/ok"] })
          assert.strictEqual(exec.status, 201, exec.body)
          const started = yield* engine.api("POST", `/exec/${JSON.parse(exec.body).Id}/start`, { Detach: true })
          assert.strictEqual(started.status, 200, started.body)
          yield* waitFor(
            request(url("/health"), { key }),
            (r) => r.json.checked?.status === "unhealthy",
            "the failing HEALTHCHECK to take the route down",
            15_000
          )
          assert.strictEqual((yield* request(url("/docker/containers/lazy/stop"), { key, method: "POST" })).status, 200)
          yield* waitFor(
            request(url("/health"), { key }),
            (r) => r.json.lazy?.status === "napping",
            "the idlewatched route to nap",
            5_000
          )
        })
      )
    )
  }
)
