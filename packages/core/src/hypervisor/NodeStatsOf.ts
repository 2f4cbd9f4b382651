import type { NodeStats } from "@gatehouse-edge/contract/domain"
import type { PveNodeStatus } from "./PveSchemas.js"

const ratioPct = (used: number, total: number): number => (total > 0 ? round2((used / total) * 100) : 0)
const round2 = (value: number): number => Math.round(value * 100) / 100

/** The NodeStats of SPEC §5.2 from a node's `/nodes/{node}/status` answer, stamped with `timestamp`. */
export const nodeStatsOf = (node: string, status: PveNodeStatus, timestamp: string): NodeStats => ({
  node,
  kernel_version: status["current-kernel"]?.release ?? status.kversion ?? "",
  pve_version: status.pveversion.split("/")[1] ?? status.pveversion,
  cpu_model: status.cpuinfo.model,
  cpu_count: Math.round(status.cpuinfo.cpus),
  cpu_usage_pct: round2(status.cpu * 100),
  mem_used: Math.round(status.memory.used),
  mem_total: Math.round(status.memory.total),
  mem_pct: ratioPct(status.memory.used, status.memory.total),
  rootfs_used: Math.round(status.rootfs.used),
  rootfs_total: Math.round(status.rootfs.total),
  rootfs_pct: ratioPct(status.rootfs.used, status.rootfs.total),
  uptime_s: Math.round(status.uptime),
  load_avg: [status.loadavg[0], status.loadavg[1], status.loadavg[2]],
  timestamp
})
