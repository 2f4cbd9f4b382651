import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Ref, SubscriptionRef } from "effect"
import * as HealthLive from "../../packages/core/src/health/HealthLive.js"
import { GuestLocator } from "../../packages/core/src/hypervisor/GuestLocator.js"
import type { RouteRecord } from "../../packages/core/src/routes/Routes.js"
import { eventsLayer, routesLayer, waitForHealth } from "../../packages/core/test/health/Fakes.js"
import { httpServer } from "../../packages/core/test/health/LoopbackServers.js"
import { recordOf, route } from "../../packages/core/test/health/RouteFixtures.js"
import { recordingShell } from "../support/RecordingShell.js"
import { buildHypervisor, clusterOf, simulator } from "./HypervisorFixture.js"

// Polls with a deadline on the real clock: the simulator and the cache's poller run in real time.
const eventually = <A, E>(check: Effect.Effect<A | undefined, E>, what: string, timeoutMs = 8000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const value = yield* check
      if (value !== undefined) return value
      yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 20)))
    }
    return yield* Effect.die(new Error(`timed out waiting for ${what}`))
  })

describe("reverse lookup of a route's guest", () => {
  it.live("an address that moved from a container now stopped to one now running is the running one's", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // A DHCP lease handed on, or a container rebuilt under a new vmid: both were given 10.0.0.50.
        const sim = yield* simulator({
          guests: [
            { vmid: 102, node: "pve1", name: "old-app", status: "running", ips: ["10.0.0.50/24"] },
            { vmid: 103, node: "pve1", name: "new-app", status: "stopped", ips: ["10.0.0.50/24"] }
          ]
        })
        const { hypervisor, locator } = yield* buildHypervisor(
          { clusters: [clusterOf(sim, { refreshIntervalMs: 200 })] },
          recordingShell().layer
        )
        yield* eventually(
          Effect.map(hypervisor.locate("10.0.0.50"), (found) => (found?.vmid === 102 ? found : undefined)),
          "102 found by its address"
        )
        sim.setGuest(102, { status: "stopped" })
        sim.setGuest(103, { status: "running" })
        yield* Effect.promise(() => sim.sampleRrd())
        // The stopped 102 keeps its last addresses; the running 103 has been looked up and holds the address too.
        yield* eventually(
          Effect.map(hypervisor.guests, (guests) => {
            const [old, now] = [102, 103].map((vmid) => guests.find((g) => g.vmid === vmid))
            return old?.status === "stopped" &&
              old.ips.includes("10.0.0.50") &&
              now?.status === "running" &&
              now.ips.includes("10.0.0.50")
              ? true
              : undefined
          }),
          "both containers holding the address, 103 running"
        )
        const running = { cluster: "sim", node: "pve1", vmid: 103, status: "running" }
        assert.deepStrictEqual(yield* hypervisor.locate("10.0.0.50"), running)
        // What route listings show and health follows for a route to that address.
        const target = route("app", "http", 8080, {}, { host: "10.0.0.50" })
        assert.deepStrictEqual(yield* locator!.locate(target), running)
      })
    )
  )

  it.live("a name held by a stopped guest in one cluster and a running one in another: the route is probed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // The first cluster (listed first, its guest's vmid lower) has the stopped one.
        const east = yield* simulator({ guests: [{ vmid: 101, node: "pve1", name: "app", status: "stopped" }] })
        const west = yield* simulator({
          nodes: [{ name: "pve2" }],
          guests: [{ vmid: 201, node: "pve2", name: "app", status: "running" }]
        })
        const { hypervisor, locator } = yield* buildHypervisor(
          { clusters: [clusterOf(east, { name: "east" }), clusterOf(west, { name: "west" })] },
          recordingShell().layer
        )
        // Health follows the running guest: the route (to a loopback server, so found by its alias) is probed.
        const server = yield* httpServer()
        const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>([
          recordOf(route("app", "http", server.port, { path: "/ok", interval_ms: 3_600_000 }))
        ])
        const published = yield* Ref.make<ReadonlyArray<Event>>([])
        const health = HealthLive.layer.pipe(
          Layer.provide(routesLayer(table)),
          Layer.provide(eventsLayer(published)),
          Layer.provide(Layer.succeed(GuestLocator)(locator))
        )
        const map = yield* waitForHealth("the route's first check", (m) =>
          ["healthy", "unhealthy"].includes(m.app?.status ?? "")
        ).pipe(Effect.provide(health))
        assert.strictEqual(map.app?.status, "healthy", JSON.stringify(map.app))
        assert.deepStrictEqual(server.hits, [{ method: "HEAD", path: "/ok" }])
        // By its host name's first label too.
        assert.deepStrictEqual(yield* hypervisor.locate("app.example.com"), {
          cluster: "west",
          node: "pve2",
          vmid: 201,
          status: "running"
        })
      })
    )
  )
})
