import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Ref, SubscriptionRef } from "effect"
import * as HealthLive from "../../src/health/HealthLive.js"
import { type GuestLocation, GuestLocator } from "../../src/hypervisor/GuestLocator.js"
import type { RouteRecord } from "../../src/routes/Routes.js"
import { eventsLayer, routesLayer, waitForHealth } from "./Fakes.js"
import { httpServer } from "./LoopbackServers.js"
import { recordOf, route } from "./RouteFixtures.js"

// Routes whose target is a Proxmox VE guest: health follows the guest the route names, as the hypervisor's cache
// reports it. Here the cache holds guest 101 stopped and guest 102 running.

const statuses: Record<number, string> = { 101: "stopped", 102: "running" }
const locator = GuestLocator.of({
  locate: (r) =>
    Effect.succeed<GuestLocation | undefined>(
      r.proxmox === undefined
        ? undefined
        : { cluster: "pve", node: r.proxmox.node, vmid: r.proxmox.vmid ?? 0, status: statuses[r.proxmox.vmid ?? 0]! }
    )
})

describe("guests' routes' health", () => {
  it.live("a route pointed at another guest follows that guest at once", () =>
    Effect.gen(function* () {
      const server = yield* httpServer()
      // A long interval: only a new monitor can check again within the test.
      const onGuest = (vmid: number): RouteRecord =>
        recordOf(
          route("app", "http", server.port, { path: "/ok", interval_ms: 3_600_000 }, { proxmox: { node: "pve", vmid } })
        )
      const table = yield* SubscriptionRef.make<ReadonlyArray<RouteRecord>>([onGuest(101)])
      const published = yield* Ref.make<ReadonlyArray<Event>>([])
      const layer = HealthLive.layer.pipe(
        Layer.provide(routesLayer(table)),
        Layer.provide(eventsLayer(published)),
        Layer.provide(Layer.succeed(GuestLocator)(locator))
      )
      yield* Effect.gen(function* () {
        yield* waitForHealth("the stopped guest's route down", (m) => m.app?.status === "unhealthy")
        assert.deepInclude((yield* Ref.get(published))[0]?.data, { error: "container 101 on node pve is stopped" })
        assert.deepStrictEqual(server.hits, [], "a stopped guest is not probed")
        // The route file now names the running guest 102: its route is probed, and passes.
        yield* SubscriptionRef.set(table, [onGuest(102)])
        yield* waitForHealth("the running guest's route healthy", (m) => m.app?.status === "healthy")
        assert.deepStrictEqual(server.hits, [{ method: "HEAD", path: "/ok" }])
      }).pipe(Effect.provide(layer))
    }).pipe(Effect.scoped)
  )
})
