import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import type { HypervisorConfig, ProxmoxClusterConfig } from "../../packages/core/src/config/ConfigSections.js"
import { ConfigDefaults } from "../../packages/core/src/config/GatehouseConfig.js"
import * as EventBus from "../../packages/core/src/events/EventBus.js"
import { EventRepository } from "../../packages/core/src/events/EventRepository.js"
import { Events } from "../../packages/core/src/events/Events.js"
import { GuestLocator } from "../../packages/core/src/hypervisor/GuestLocator.js"
import { Hypervisor } from "../../packages/core/src/hypervisor/Hypervisor.js"
import * as HypervisorLive from "../../packages/core/src/hypervisor/HypervisorLive.js"
import type { NodeShell } from "../../packages/core/src/hypervisor/NodeShell.js"
import * as StoreLive from "../../packages/core/src/store/StoreLive.js"
import { type PveSim, type PveSimOptions, startPveSimulator } from "../pve-sim/PveSimulator.js"

/** A simulator on loopback for the scope, with auth failures delayed 20 ms instead of PVE's 3 s. */
export const simulator = (options: PveSimOptions = {}): Effect.Effect<PveSim, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startPveSimulator({ authFailureDelayMs: 20, taskDurationMs: 50, ...options })),
    (sim) => Effect.promise(() => sim.close())
  )

/** The cluster config of a simulator, token auth and its pinned fingerprint unless overridden. */
export const clusterOf = (sim: PveSim, patch: Partial<ProxmoxClusterConfig> = {}): ProxmoxClusterConfig => ({
  name: "sim",
  url: sim.url,
  credentials: { _tag: "Token", tokenId: sim.token.tokenId, secret: Redacted.make(sim.token.secret) },
  tls: { fingerprint: sim.fingerprint, caFile: undefined, insecure: false },
  refreshIntervalMs: 3000,
  lookupConcurrency: 3,
  ssh: undefined,
  ...patch
})

/** The same cluster signing in with another token. */
export const withToken = (cluster: ProxmoxClusterConfig, tokenId: string, secret: string): ProxmoxClusterConfig => ({
  ...cluster,
  credentials: { _tag: "Token", tokenId, secret: Redacted.make(secret) }
})

/**
 * Builds the hypervisor service (and the event bus it publishes to, on an in-memory store, and the guest locator
 * route listings and health use) for the scope; `tailPaths` defaults as in the config (`/var/log`).
 */
export const buildHypervisor = (
  config: Omit<HypervisorConfig, "tailPaths"> & Partial<Pick<HypervisorConfig, "tailPaths">>,
  shell: Layer.Layer<NodeShell>,
  options: HypervisorLive.HypervisorOptions = {}
) =>
  Effect.gen(function* () {
    const events = EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
    const full: HypervisorConfig = { tailPaths: ConfigDefaults.tailPaths, ...config }
    const context = yield* Layer.build(
      HypervisorLive.layer(full, options).pipe(Layer.provideMerge(events), Layer.provide(shell))
    )
    return {
      hypervisor: Context.get(context, Hypervisor),
      events: Context.get(context, Events),
      locator: Context.get(context, GuestLocator)
    }
  })
