import type { Route } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** Where a route's target runs, when it is a Proxmox VE guest or node. */
export interface GuestLocation {
  readonly cluster: string
  readonly node: string
  /** 0: the node itself. */
  readonly vmid: number
  /** The guest's (or node's) status in the resource cache: `running`, `stopped`, `online`, ... */
  readonly status: string
}

/** Finds the guest of a route (see {@link GuestLocator}). */
export interface GuestLocatorShape {
  readonly locate: (route: Route) => Effect.Effect<GuestLocation | undefined>
}

/**
 * Finds the Proxmox VE guest a route targets: its `proxmox` field, or else reverse lookup of its host (address or
 * hostname) and alias in the resource cache (SPEC §2). Route listings show the result as the route's `proxmox`, and
 * health reports a route whose container is not running without probing it. `undefined` (the default) when no
 * hypervisor is configured, so route listings and health skip the lookup entirely.
 */
export class GuestLocator extends Context.Reference<GuestLocatorShape | undefined>(
  "@gatehouse-edge/core/GuestLocator",
  {
    defaultValue: () => undefined
  }
) {}
