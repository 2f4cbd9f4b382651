import type { HealthStatusString, RouteUptimeAggregate, StatusSample } from "@gatehouse-edge/contract/domain"
import * as DateTime from "effect/DateTime"
import { addCounts, type BucketCounts, emptyCounts, worstStatus } from "./UptimeBuckets.js"

/** A bucket's counts at its start time (epoch ms), with its point when it was already rendered. */
export interface TimedCounts {
  readonly start: number
  readonly counts: BucketCounts
  readonly point?: StatusSample | undefined
}

// Latencies are measured to hundredths of a millisecond (health's own precision).
const hundredths = (ms: number) => Math.round(ms * 100) / 100

const averageLatency = (c: BucketCounts) => (c.latency_count === 0 ? 0 : hundredths(c.latency_sum / c.latency_count))

/** The point of a bucket: its worst status, the average latency of its healthy samples, its start. */
export const pointOf = ({ start, counts }: TimedCounts): StatusSample => ({
  status: worstStatus(counts),
  latency_ms: averageLatency(counts),
  timestamp: DateTime.formatIso(DateTime.makeUnsafe(start))
})

/**
 * The aggregate of one route over the buckets of a period (oldest first). Up is `healthy`; down is `unhealthy`
 * or `error`; idle is `napping`. `starting` (a container's start period, a route's first check) and `unknown`
 * (no monitor, or an excluded route) say nothing about the target, so they count for none of the three: the
 * fractions are of the known samples and add up to 1 (all 0 when there is none). The average latency is over the
 * healthy samples that measured one, so a down target's timeouts do not inflate it.
 */
export const aggregateRoute = (route: {
  readonly alias: string
  readonly excluded: boolean
  readonly currentStatus: HealthStatusString
  readonly buckets: ReadonlyArray<TimedCounts>
}): RouteUptimeAggregate => {
  const total = emptyCounts()
  for (const bucket of route.buckets) addCounts(total, bucket.counts)
  const up = total.healthy
  const down = total.unhealthy + total.error
  const idle = total.napping
  const known = up + down + idle
  return {
    alias: route.alias,
    is_excluded: route.excluded,
    uptime: known === 0 ? 0 : up / known,
    downtime: known === 0 ? 0 : down / known,
    idle: known === 0 ? 0 : idle / known,
    avg_latency_ms: averageLatency(total),
    current_status: route.currentStatus,
    statuses: route.buckets.map((bucket) => bucket.point ?? pointOf(bucket))
  }
}
