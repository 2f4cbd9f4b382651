import type { ContainerStats } from "../domain/Docker.js"

/** The parts of an engine's stats document (`GET /containers/{id}/stats`) that the normalization reads. */
export interface EngineStats {
  readonly read?: string
  readonly name?: string
  readonly id?: string
  readonly Id?: string
  readonly cpu_stats?: CpuStats
  readonly precpu_stats?: CpuStats
  readonly memory_stats?: {
    readonly usage?: number
    readonly limit?: number
    readonly stats?: Readonly<Record<string, number | undefined>>
  }
  readonly networks?: Readonly<Record<string, { readonly rx_bytes?: number; readonly tx_bytes?: number }>>
  readonly blkio_stats?: {
    readonly io_service_bytes_recursive?: ReadonlyArray<{ readonly op?: string; readonly value?: number }> | null
  }
  readonly pids_stats?: { readonly current?: number }
}

interface CpuStats {
  readonly cpu_usage?: { readonly total_usage?: number; readonly percpu_usage?: ReadonlyArray<number> | null }
  readonly system_cpu_usage?: number
  readonly online_cpus?: number
}

const n = (value: number | undefined | null): number =>
  typeof value === "number" && Number.isFinite(value) ? value : 0

/**
 * CPU % as `docker stats` computes it: the container's CPU time over the host's in the same interval, times the
 * CPUs it may use. 0 without a previous sample (Podman's one-shot stats, the first sample of a stream).
 */
export const cpuPercent = (stats: EngineStats): number => {
  const cpu = stats.cpu_stats
  const pre = stats.precpu_stats
  const cpuDelta = n(cpu?.cpu_usage?.total_usage) - n(pre?.cpu_usage?.total_usage)
  const systemDelta = n(cpu?.system_cpu_usage) - n(pre?.system_cpu_usage)
  if (n(pre?.system_cpu_usage) === 0 || cpuDelta <= 0 || systemDelta <= 0) return 0
  const cpus = n(cpu?.online_cpus) || cpu?.cpu_usage?.percpu_usage?.length || 1
  return (cpuDelta / systemDelta) * cpus * 100
}

/**
 * Memory in use without the page cache, as `docker stats` shows it: cgroup v1 subtracts `total_inactive_file`,
 * cgroup v2 `inactive_file`; an engine that reports neither (Podman) gives its usage as is.
 */
export const memoryUsed = (stats: EngineStats): number => {
  const memory = stats.memory_stats
  const usage = n(memory?.usage)
  const detail = memory?.stats ?? {}
  const inactive = detail.total_inactive_file ?? detail.inactive_file
  return inactive !== undefined && inactive < usage ? usage - inactive : usage
}

const blockBytes = (stats: EngineStats, op: "read" | "write"): number =>
  (stats.blkio_stats?.io_service_bytes_recursive ?? [])
    .filter((entry) => entry.op?.toLowerCase() === op)
    .reduce((sum, entry) => sum + n(entry.value), 0)

/** The normalized stats of one engine sample (SPEC §6), for the container `id` on `host`. */
export const containerStatsOf = (host: string, id: string, stats: EngineStats): ContainerStats => {
  const memUsed = Math.round(memoryUsed(stats))
  const memLimit = Math.round(n(stats.memory_stats?.limit))
  const networks = Object.values(stats.networks ?? {})
  return {
    id,
    name: (stats.name ?? "").replace(/^\//, ""),
    host,
    cpu_pct: Math.round(cpuPercent(stats) * 100) / 100,
    mem_used: memUsed,
    mem_limit: memLimit,
    mem_pct: memLimit > 0 ? Math.round((memUsed / memLimit) * 10000) / 100 : 0,
    net_rx: Math.round(networks.reduce((sum, net) => sum + n(net.rx_bytes), 0)),
    net_tx: Math.round(networks.reduce((sum, net) => sum + n(net.tx_bytes), 0)),
    block_read: Math.round(blockBytes(stats, "read")),
    block_write: Math.round(blockBytes(stats, "write")),
    pids: Math.round(n(stats.pids_stats?.current)),
    timestamp: stats.read ?? ""
  }
}
