import type { HealthStatusString, UptimePeriod } from "@gatehouse-edge/contract/domain"

/** Every period, shortest first. */
export const uptimePeriods: ReadonlyArray<UptimePeriod> = ["5m", "15m", "1h", "1d", "1mo"]

/** Points per period: a period is cut into this many buckets of equal width. */
export const pointsPerPeriod = 100

const periodMs: Readonly<Record<UptimePeriod, number>> = {
  "5m": 5 * 60_000,
  "15m": 15 * 60_000,
  "1h": 3_600_000,
  "1d": 86_400_000,
  "1mo": 30 * 86_400_000
}

/** The width of one bucket of `period`: 5m → 3 s, 15m → 9 s, 1h → 36 s, 1d → 864 s, 1mo → 25,920 s (7.2 h). */
export const bucketWidthMs = (period: UptimePeriod): number => periodMs[period] / pointsPerPeriod

/**
 * The start of the bucket of `period` that holds time `t` (epoch ms). Buckets are aligned to the epoch, so every
 * process (and every restart) cuts time the same way.
 */
export const bucketStartOf = (period: UptimePeriod, t: number): number => {
  const width = bucketWidthMs(period)
  return Math.floor(t / width) * width
}

/**
 * The start of the oldest bucket of `period` shown at `now`: the current (partial) bucket and the 99 before it,
 * so a period never has more than {@link pointsPerPeriod} points.
 */
export const windowStartOf = (period: UptimePeriod, now: number): number =>
  bucketStartOf(period, now) - (pointsPerPeriod - 1) * bucketWidthMs(period)

/** Buckets of `period` that start before this are deleted: the window plus one bucket is kept. */
export const retentionCutoffOf = (period: UptimePeriod, now: number): number =>
  windowStartOf(period, now) - bucketWidthMs(period)

/**
 * Samples per status in one bucket, and the sum and count of the latencies of its healthy samples that measured
 * one (latency > 0: a container's own HEALTHCHECK or a silent UDP target measure nothing).
 */
export interface BucketCounts {
  healthy: number
  unhealthy: number
  error: number
  napping: number
  starting: number
  unknown: number
  latency_sum: number
  latency_count: number
}

/** One bucket of one route: what the store keeps, and what the recorder adds to it. */
export interface Bucket extends BucketCounts {
  readonly period: UptimePeriod
  readonly alias: string
  readonly start: number
}

/** A bucket with no samples. */
export const emptyCounts = (): BucketCounts => ({
  healthy: 0,
  unhealthy: 0,
  error: 0,
  napping: 0,
  starting: 0,
  unknown: 0,
  latency_sum: 0,
  latency_count: 0
})

/** Counts one sample. */
export const addSample = (counts: BucketCounts, status: HealthStatusString, latencyMs: number): void => {
  counts[status]++
  if (status === "healthy" && latencyMs > 0) {
    counts.latency_sum += latencyMs
    counts.latency_count++
  }
}

/** Adds `from` into `into`. */
export const addCounts = (into: BucketCounts, from: BucketCounts): void => {
  into.healthy += from.healthy
  into.unhealthy += from.unhealthy
  into.error += from.error
  into.napping += from.napping
  into.starting += from.starting
  into.unknown += from.unknown
  into.latency_sum += from.latency_sum
  into.latency_count += from.latency_count
}

/** How many samples the bucket holds. */
export const sampleCount = (c: BucketCounts): number =>
  c.healthy + c.unhealthy + c.error + c.napping + c.starting + c.unknown

// Least severe first. A bucket shows the worst status it saw, so a short outage is never averaged away in a bucket
// of hours; the fractions say how long it lasted. `unknown` is least: any real observation says more.
const severity: ReadonlyArray<HealthStatusString> = ["unknown", "healthy", "napping", "starting", "unhealthy", "error"]

/** The most severe status sampled in the bucket (`unknown` when it holds no sample). */
export const worstStatus = (c: BucketCounts): HealthStatusString => {
  for (let i = severity.length - 1; i > 0; i--) if (c[severity[i]!] > 0) return severity[i]!
  return "unknown"
}
