import { assert, describe, it } from "@effect/vitest"
import type { ContainerTarget, Event } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Ref, SubscriptionRef } from "effect"
import { containerVerdict } from "../../src/health/ContainerMonitor.js"
import * as HealthLive from "../../src/health/HealthLive.js"
import type { RouteRecord } from "../../src/routes/Routes.js"
import { eventsLayer, routesLayer, waitForHealth } from "./Fakes.js"
import { httpServer } from "./LoopbackServers.js"
import { recordOf, route } from "./RouteFixtures.js"

// Routes whose target runs in a container (Docker label routes): health follows the container's state and its
// HEALTHCHECK, the route's own probe runs only for a running container without one.

const running: ContainerTarget = {
  host: "local",
  id: "c1",
  name: "web",
  state: "running",
  status: "Up 3 seconds",
  created: 0
}
const exited: ContainerTarget = { ...running, state: "exited", status: "Exited (137) 1 second ago" }

const inContainer = (record: RouteRecord, container: ContainerTarget): RouteRecord => ({ ...record, container })

const waitFor = waitForHealth

describe("container routes' health", () => {
  it("the verdict: not running is down (napping with an idlewatcher), a HEALTHCHECK decides, else the probe", () => {
    const plain = route("web", "http", 9)
    assert.deepStrictEqual(containerVerdict(plain, exited), {
      status: "unhealthy",
      latency_ms: 0,
      error: "container web is exited (Exited (137) 1 second ago)"
    })
    const lazy = route(
      "web",
      "http",
      9,
      {},
      {
        idlewatcher: { idle_timeout_ms: 1, wake_timeout_ms: 1, stop_timeout_ms: 1, stop_method: "stop", depends_on: [] }
      }
    )
    assert.strictEqual(containerVerdict(lazy, exited)?.status, "napping")
    assert.strictEqual(containerVerdict(lazy, { ...exited, state: "dead" })?.status, "unhealthy")
    assert.isUndefined(containerVerdict(plain, running))
    assert.strictEqual(containerVerdict(plain, { ...running, health: "starting" })?.status, "starting")
    assert.strictEqual(containerVerdict(plain, { ...running, health: "healthy" })?.status, "healthy")
    assert.strictEqual(containerVerdict(plain, { ...running, health: "unhealthy" })?.status, "unhealthy")
  })

  it.live("a running container's route is probed; stopped, it goes down at once with health/down; started, up", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      // A long interval: the transitions below can only come from the container's state replacing the monitor.
      const web = recordOf(route("web", "http", server.port, { path: "/ok", interval_ms: 3_600_000 }))
      const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>([inContainer(web, running)])
      const published = yield* Ref.make<ReadonlyArray<Event>>([])
      const layer = HealthLive.layer.pipe(Layer.provide(routesLayer(table)), Layer.provide(eventsLayer(published)))
      yield* Effect.gen(function* () {
        yield* waitFor("the probe to pass", (m) => m.web?.status === "healthy")
        yield* SubscriptionRef.set(table, [inContainer(web, exited)])
        const down = yield* waitFor("the stopped container's route to go down", (m) => m.web?.status === "unhealthy")
        assert.strictEqual(down.web?.latency_ms, 0)
        const [fall] = yield* Ref.get(published)
        assert.deepInclude(fall?.data, {
          alias: "web",
          previous: "healthy",
          status: "unhealthy",
          error: "container web is exited (Exited (137) 1 second ago)"
        })
        yield* SubscriptionRef.set(table, [inContainer(web, { ...running, status: "Up 1 second" })])
        yield* waitFor("the probe to pass again", (m) => m.web?.status === "healthy")
        assert.deepStrictEqual(
          (yield* Ref.get(published)).map((e) => e.action),
          ["down", "up"]
        )
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped)
  )

  it.live("a HEALTHCHECK's verdict replaces the probe: healthy although nothing listens, then its failure", () =>
    Effect.gen(function* () {
      const web = recordOf(route("web", "tcp", 9, { interval_ms: 3_600_000 }))
      const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>([
        inContainer(web, { ...running, health: "starting" })
      ])
      const published = yield* Ref.make<ReadonlyArray<Event>>([])
      const layer = HealthLive.layer.pipe(Layer.provide(routesLayer(table)), Layer.provide(eventsLayer(published)))
      yield* Effect.gen(function* () {
        yield* SubscriptionRef.set(table, [inContainer(web, { ...running, health: "healthy" })])
        yield* waitFor("the HEALTHCHECK's healthy", (m) => m.web?.status === "healthy")
        yield* SubscriptionRef.set(table, [inContainer(web, { ...running, health: "unhealthy" })])
        yield* waitFor("the HEALTHCHECK's unhealthy", (m) => m.web?.status === "unhealthy")
        assert.deepInclude((yield* Ref.get(published))[0]?.data, { error: "container web: its HEALTHCHECK fails" })
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped)
  )
})
