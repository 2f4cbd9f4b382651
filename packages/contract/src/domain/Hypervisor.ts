import * as Schema from "effect/Schema"

/** A Proxmox VE node's stats (SPEC §5.2), from `/nodes/{node}/status`: bytes as integers, percentages as numbers. */
export const NodeStats = Schema.Struct({
  node: Schema.String,
  kernel_version: Schema.String,
  pve_version: Schema.String,
  cpu_model: Schema.String,
  cpu_count: Schema.Int,
  cpu_usage_pct: Schema.Finite,
  mem_used: Schema.Int,
  mem_total: Schema.Int,
  mem_pct: Schema.Finite,
  rootfs_used: Schema.Int,
  rootfs_total: Schema.Int,
  rootfs_pct: Schema.Finite,
  uptime_s: Schema.Int,
  load_avg: Schema.Tuple([Schema.Finite, Schema.Finite, Schema.Finite]),
  timestamp: Schema.String
}).annotate({ identifier: "NodeStats" })
export type NodeStats = typeof NodeStats.Type

/** A node as the resource cache last saw it (`GET /hypervisor/nodes`). */
export const HypervisorNode = Schema.Struct({
  cluster: Schema.String,
  node: Schema.String,
  status: Schema.String,
  cpu_count: Schema.optionalKey(Schema.Int),
  cpu_usage_pct: Schema.optionalKey(Schema.Finite),
  mem_used: Schema.optionalKey(Schema.Int),
  mem_total: Schema.optionalKey(Schema.Int),
  uptime_s: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "HypervisorNode" })
export type HypervisorNode = typeof HypervisorNode.Type

/** A guest (LXC container or VM) as the resource cache last saw it (`GET /hypervisor/guests`). */
export const Guest = Schema.Struct({
  cluster: Schema.String,
  node: Schema.String,
  vmid: Schema.Int,
  type: Schema.Literals(["lxc", "qemu"]),
  name: Schema.String,
  status: Schema.String,
  cpu_usage_pct: Schema.Finite,
  mem_used: Schema.Int,
  mem_total: Schema.Int,
  net_in: Schema.Int,
  net_out: Schema.Int,
  disk_read: Schema.Int,
  disk_write: Schema.Int,
  uptime_s: Schema.Int,
  /** Addresses of the container's interfaces (without prefix length), loopback excluded; LXC only. */
  ips: Schema.Array(Schema.String),
  tags: Schema.Array(Schema.String)
}).annotate({ identifier: "Guest" })
export type Guest = typeof Guest.Type

/** Whether the cache is fresh, per cluster (`stale` after a failed refresh: the last good data is kept). */
export const ClusterCacheState = Schema.Struct({
  cluster: Schema.String,
  stale: Schema.Boolean,
  refreshed_at: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ClusterCacheState" })
export type ClusterCacheState = typeof ClusterCacheState.Type

/** The three LXC power actions of `POST /hypervisor/lxc/{node}/{vmid}/{action}`. */
export const LxcAction = Schema.Literals(["start", "stop", "restart"]).annotate({ identifier: "LxcAction" })
export type LxcAction = typeof LxcAction.Type

/** The answer of an LXC power action: what happened, the final status, and the Proxmox task that did it. */
export const LxcActionResult = Schema.Struct({
  message: Schema.String,
  status: Schema.String,
  /** The UPID of the task; absent when the container already was in the target state. */
  task: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "LxcActionResult" })
export type LxcActionResult = typeof LxcActionResult.Type
