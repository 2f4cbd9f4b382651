import type { ContainerStats } from "@gatehouse-edge/contract/domain"

/** The parts of an engine's stats document (`GET /containers/{id}/stats`) that the normalization reads. */
export interface EngineStats {
  readonly read?: string
  /** When `precpu_stats` was taken (`0001-01-01T00:00:00Z` when there is no previous sample). */
  readonly preread?: string
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

/** Nanoseconds since the epoch of an RFC 3339 time with up to nanosecond digits; `undefined` if it is not one. */
export const epochNanos = (time: string | undefined): bigint | undefined => {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(time ?? "")
  if (match === null) return undefined
  const seconds = Date.parse(`${match[1]}${match[3]}`)
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined
  return BigInt(seconds) * 1_000_000n + BigInt((match[2] ?? "").slice(0, 9).padEnd(9, "0"))
}

/**
 * CPU % as `docker stats` computes it (100% is one CPU busy): the container's CPU time over the host's in the same
 * interval, times the CPUs. The host's time must advance at the CPU count times wall-clock time; Podman's does not
 * (it advances at wall-clock rate, so the formula doubles on 2 CPUs), and there the container's CPU time over the
 * wall-clock time between the two samples is the same measure. 0 without a previous sample (Podman's one-shot
 * stats, a stream's first).
 */
export const cpuPercent = (stats: EngineStats): number => {
  const cpu = stats.cpu_stats
  const pre = stats.precpu_stats
  const cpuDelta = n(cpu?.cpu_usage?.total_usage) - n(pre?.cpu_usage?.total_usage)
  const systemDelta = n(cpu?.system_cpu_usage) - n(pre?.system_cpu_usage)
  if (n(pre?.system_cpu_usage) === 0 || cpuDelta <= 0 || systemDelta <= 0) return 0
  const cpus = n(cpu?.online_cpus) || cpu?.cpu_usage?.percpu_usage?.length || 1
  const read = epochNanos(stats.read)
  const preread = epochNanos(stats.preread)
  const elapsed = read !== undefined && preread !== undefined ? Number(read - preread) : 0
  // Podman's rate is 1/cpus of the expected one (on one CPU both formulas agree); 3/4 of it leaves room for the
  // two readings being taken at slightly different instants.
  if (elapsed > 0 && systemDelta < elapsed * cpus * 0.75) return (cpuDelta / elapsed) * 100
  return (cpuDelta / systemDelta) * cpus * 100
}

/**
 * Whether a sample is a measurement of a running container. Once it stopped, Docker answers (a stream goes on every
 * second) with samples of zeros stamped with Go's zero time, `0001-01-01T00:00:00Z`; a sample without a time is
 * taken as it comes.
 */
export const isLiveSample = (stats: EngineStats): boolean => !(stats.read ?? "").startsWith("0001-01-01T00:00:00")

/** Whether a sample carries a previous one to measure CPU against (Podman's one-shot stats do not). */
export const hasPreviousSample = (stats: EngineStats): boolean => n(stats.precpu_stats?.system_cpu_usage) > 0

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
