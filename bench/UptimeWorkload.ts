/**
 * The workload of `uptime.ts`: a deterministic status timeline per route, the bucket counts 1 Hz sampling of it
 * gives, the health map a snapshot returns, and the baseline writer (plain better-sqlite3 prepared statements).
 */
import {
  type Bucket,
  bucketStartOf,
  bucketWidthMs,
  emptyCounts,
  type HealthMap,
  type HealthStatusString,
  type UptimePeriod,
  uptimePeriods
} from "@gatehouse-edge/core"
import { Database } from "../packages/core/src/store/SqliteDriver.js"

// ---------------------------------------------------------------------------------------------------------------
// The status timeline: constant over 10-minute slots (which divide hours), so a bucket's counts are sums of slots.
// ---------------------------------------------------------------------------------------------------------------

const slotSeconds = 600
const hash = (a: number, b: number) => {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35)
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d)
  return ((h ^ (h >>> 13)) >>> 0) / 2 ** 32
}
export const statusAt = (route: number, slot: number): HealthStatusString => {
  const hourOfDay = Math.floor((slot * slotSeconds) / 3600) % 24
  if (route % 10 === 0 && hourOfDay < 8) return "napping"
  return hash(route, slot) < 0.01 ? "unhealthy" : "healthy"
}
export const latencyAt = (route: number, slot: number) => 1 + (route % 40) + Math.round(hash(slot, route) * 400) / 100
export const aliasOf = (route: number) => `app-${String(route).padStart(4, "0")}`

/** The counts 1 Hz sampling of the timeline gives over `[from, to)` (epoch seconds). */
export const countsOver = (route: number, period: UptimePeriod, from: number, to: number): Bucket => {
  const bucket: Bucket = {
    period,
    alias: aliasOf(route),
    start: from * 1000,
    ...emptyCounts()
  }
  for (let slot = Math.floor(from / slotSeconds); slot * slotSeconds < to; slot++) {
    const n = Math.min(to, (slot + 1) * slotSeconds) - Math.max(from, slot * slotSeconds)
    const status = statusAt(route, slot)
    bucket[status] += n
    if (status === "healthy") {
      bucket.latency_sum += n * latencyAt(route, slot)
      bucket.latency_count += n
    }
  }
  return bucket
}

// A health map per snapshot, as the real service builds one for every read.
export const healthAt = (routeCount: number, second: number): HealthMap => {
  const map: Record<string, HealthMap[string]> = {}
  const slot = Math.floor(second / slotSeconds)
  for (let r = 0; r < routeCount; r++) {
    const status = statusAt(r, slot)
    map[aliasOf(r)] = {
      status,
      latency_ms: status === "healthy" ? latencyAt(r, slot) : 0,
      uptime_s: 0,
      last_check: null
    }
  }
  return map
}

/** The same rows with a prepared statement, one transaction per flush window; the same retention deletes. */
export const baseline = (options: {
  readonly file: string
  readonly routeCount: number
  readonly t0: number
  readonly liveSeconds: number
  readonly flushSeconds: number
}) => {
  const { file, routeCount, t0, liveSeconds, flushSeconds } = options
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL") // as the store (packages/core/src/store/SqliteClient.ts)
  const upsert = db.prepare(`INSERT INTO uptime_buckets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (period, alias, bucket_start) DO UPDATE SET healthy = healthy + excluded.healthy,
      unhealthy = unhealthy + excluded.unhealthy, error = error + excluded.error, napping = napping + excluded.napping,
      starting = starting + excluded.starting, unknown = unknown + excluded.unknown,
      latency_sum = latency_sum + excluded.latency_sum, latency_count = latency_count + excluded.latency_count`)
  const sweep = db.prepare("DELETE FROM uptime_buckets WHERE period = ? AND bucket_start < ?")
  const flush = db.transaction((rows: ReadonlyArray<Bucket>) => {
    for (const b of rows) {
      upsert.run(
        b.period,
        b.alias,
        b.start,
        b.healthy,
        b.unhealthy,
        b.error,
        b.napping,
        b.starting,
        b.unknown,
        b.latency_sum,
        b.latency_count
      )
    }
  })
  const lastSweep = new Map<UptimePeriod, number>()
  const cpu = process.cpuUsage()
  let rows = 0
  const t0s = t0 / 1000
  for (let w = 0; w * flushSeconds < liveSeconds; w++) {
    const batch: Array<Bucket> = []
    for (let r = 0; r < routeCount; r++) {
      for (const period of uptimePeriods) {
        const width = bucketWidthMs(period) / 1000
        // The window's seconds, split where a bucket boundary falls.
        let from = t0s + w * flushSeconds
        const end = t0s + (w + 1) * flushSeconds
        while (from < end) {
          const to = Math.min(end, bucketStartOf(period, from * 1000) / 1000 + width)
          batch.push({ ...countsOver(r, period, from, to), start: bucketStartOf(period, from * 1000) })
          from = to
        }
      }
    }
    flush(batch)
    rows += batch.length
    // As UptimeLive sweeps: each period at most once a minute (or once per bucket when wider).
    const now = t0 + (w + 1) * flushSeconds * 1000
    for (const period of uptimePeriods) {
      const last = lastSweep.get(period)
      if (last !== undefined && now - last < Math.max(60_000, bucketWidthMs(period))) continue
      lastSweep.set(period, now)
      sweep.run(period, bucketStartOf(period, now) - 100 * bucketWidthMs(period))
    }
  }
  const used = process.cpuUsage(cpu)
  db.close()
  return { cpuMs: (used.user + used.system) / 1000, rows }
}
