import * as Schema from "effect/Schema"
import { defineEvent } from "./EventKind.js"

const LxcActionData = Schema.Struct({
  cluster: Schema.String,
  node: Schema.String,
  vmid: Schema.Int,
  /** The UPID of the Proxmox task; absent when the container already was in the target state. */
  task: Schema.optionalKey(Schema.String),
  status: Schema.String,
  /** The warnings Proxmox's task logged (its exit status was `WARNINGS: <n>`, a success); absent when none. */
  warnings: Schema.optionalKey(Schema.Int),
  /** Who asked (the caller's principal subject). */
  by: Schema.String
})

/** `hypervisor/lxc_start`: a container was started (or already ran). */
export const LxcStartEvent = defineEvent("hypervisor", "lxc_start", {
  level: "info",
  identifier: "LxcStartEvent",
  description: "an LXC container was started through Gatehouse",
  data: LxcActionData
})

/** `hypervisor/lxc_stop`: a container was shut down (or stopped after the shutdown timeout). */
export const LxcStopEvent = defineEvent("hypervisor", "lxc_stop", {
  level: "info",
  identifier: "LxcStopEvent",
  description: "an LXC container was stopped through Gatehouse",
  data: LxcActionData
})

/** `hypervisor/lxc_restart`: a container was rebooted. */
export const LxcRestartEvent = defineEvent("hypervisor", "lxc_restart", {
  level: "info",
  identifier: "LxcRestartEvent",
  description: "an LXC container was restarted through Gatehouse",
  data: LxcActionData
})

/** `hypervisor/lxc_failed`: a power action failed (task exit status, timeout or Proxmox error). */
export const LxcFailedEvent = defineEvent("hypervisor", "lxc_failed", {
  level: "error",
  identifier: "LxcFailedEvent",
  description: "an LXC power action failed",
  data: Schema.Struct({
    cluster: Schema.String,
    node: Schema.String,
    vmid: Schema.Int,
    action: Schema.Literals(["start", "stop", "restart"]),
    error: Schema.String,
    by: Schema.String
  })
})

const ClusterData = Schema.Struct({ cluster: Schema.String, error: Schema.optionalKey(Schema.String) })

/** `hypervisor/cache_stale`: a refresh of a cluster's resources failed; the last good data is kept. */
export const CacheStaleEvent = defineEvent("hypervisor", "cache_stale", {
  level: "warn",
  identifier: "HypervisorCacheStaleEvent",
  description: "refreshing a cluster's resources failed; the last good data is served, marked stale",
  data: ClusterData
})

/** `hypervisor/cache_recovered`: a cluster's resources refresh again after a failure. */
export const CacheRecoveredEvent = defineEvent("hypervisor", "cache_recovered", {
  level: "info",
  identifier: "HypervisorCacheRecoveredEvent",
  description: "a cluster's resources refresh again after a failure",
  data: ClusterData
})

/** `hypervisor/permissions`: Gatehouse's Proxmox credentials lack privileges some features need. */
export const PermissionsMissingEvent = defineEvent("hypervisor", "permissions", {
  level: "warn",
  identifier: "HypervisorPermissionsEvent",
  description: "the cluster's credentials lack privileges (each missing one named, with the features it blocks)",
  data: Schema.Struct({
    cluster: Schema.String,
    missing: Schema.Array(Schema.Struct({ path: Schema.String, privilege: Schema.String, needed_for: Schema.String }))
  })
})

/** Constructors of the `hypervisor` events. */
export const HypervisorEvents = {
  lxcStart: LxcStartEvent.make,
  lxcStop: LxcStopEvent.make,
  lxcRestart: LxcRestartEvent.make,
  lxcFailed: LxcFailedEvent.make,
  cacheStale: CacheStaleEvent.make,
  cacheRecovered: CacheRecoveredEvent.make,
  permissionsMissing: PermissionsMissingEvent.make
} as const
