import type { UptimePeriod } from "@gatehouse-edge/contract/domain"
import { type HealthMap, ServerHealthKey } from "@gatehouse-edge/contract/domain"
import { addCounts, addSample, type Bucket, bucketStartOf, retentionCutoffOf, uptimePeriods } from "./UptimeBuckets.js"

type MutableBucket = { -readonly [K in keyof Bucket]: Bucket[K] }

/** One route's samples not yet in the store: the open bucket of each period, and buckets closed since. */
interface Pending {
  readonly open: Array<MutableBucket | undefined>
  readonly closed: Array<Bucket>
  /** Whether a sample counted the route since the last drain: a route that went away is dropped by the next one. */
  sampled: boolean
}

// A bucket with no samples yet, written out rather than spread from `emptyCounts()`: a thousand routes open
// ~1,500 buckets a second.
const openBucket = (period: UptimePeriod, alias: string, start: number): MutableBucket => ({
  period,
  alias,
  start,
  healthy: 0,
  unhealthy: 0,
  error: 0,
  napping: 0,
  starting: 0,
  unknown: 0,
  latency_sum: 0,
  latency_count: 0
})

// Appends a route's delta to the drained list, whose route's deltas start at `from`. Deltas of the same bucket (one
// put back after a failed write, or a clock that stepped back) become one: PostgreSQL refuses a statement that
// updates the same row twice. A route has a handful of deltas per drain, so a scan finds them without a map.
const appendMerged = (out: Array<Bucket>, from: number, delta: Bucket) => {
  for (let i = from; i < out.length; i++) {
    const into = out[i]!
    if (into.period === delta.period && into.start === delta.start) {
      const sum: MutableBucket = { ...into }
      addCounts(sum, delta)
      out[i] = sum
      return
    }
  }
  out.push(delta)
}

/** Samples counted in memory until the next flush (see {@link makeUptimeRecorder}). */
export interface UptimeRecorder {
  /** Counts one sample of every route in the map at `now` into the buckets of every period. */
  readonly record: (health: HealthMap, now: number) => void
  /** Everything counted since the last drain, as bucket deltas for the store; the recorder starts empty again. */
  readonly drain: () => ReadonlyArray<Bucket>
  /** Puts drained deltas back (their write failed), to be written with the next drain; those past retention go. */
  readonly restore: (deltas: ReadonlyArray<Bucket>, now: number) => void
  /** The route's counts not yet in the store, for `period`. */
  readonly pendingOf: (alias: string, period: UptimePeriod) => ReadonlyArray<Bucket>
}

/**
 * The recorder: a second's sample of a thousand routes is five thousand counter increments in memory; the store
 * sees each bucket's counts once per flush, as additions (see `UptimeRepository.add`), never one write per sample.
 * A crash loses what was counted since the last flush and nothing else.
 */
export const makeUptimeRecorder = (): UptimeRecorder => {
  const pending = new Map<string, Pending>()

  const pendingFor = (alias: string): Pending => {
    let entry = pending.get(alias)
    if (entry === undefined) {
      entry = { open: uptimePeriods.map(() => undefined), closed: [], sampled: false }
      pending.set(alias, entry)
    }
    return entry
  }

  const record = (health: HealthMap, now: number) => {
    for (const alias in health) {
      // The server's own entry reports route-file problems, not a route.
      if (alias === ServerHealthKey) continue
      const info = health[alias]!
      const entry = pendingFor(alias)
      entry.sampled = true
      for (let i = 0; i < uptimePeriods.length; i++) {
        const period = uptimePeriods[i]!
        const start = bucketStartOf(period, now)
        let bucket = entry.open[i]
        if (bucket === undefined || bucket.start !== start) {
          if (bucket !== undefined) entry.closed.push(bucket)
          bucket = openBucket(period, alias, start)
          entry.open[i] = bucket
        }
        addSample(bucket, info.status, info.latency_ms)
      }
    }
  }

  // Entries stay from one drain to the next (a thousand routes would otherwise rebuild them every flush); those of
  // routes no sample counted since the previous drain go, so routes that went away leave nothing behind.
  const drain = () => {
    const out: Array<Bucket> = []
    for (const [alias, entry] of pending) {
      const from = out.length
      for (const bucket of entry.closed) appendMerged(out, from, bucket)
      entry.closed.length = 0
      for (let i = 0; i < entry.open.length; i++) {
        const bucket = entry.open[i]
        if (bucket !== undefined) appendMerged(out, from, bucket)
        entry.open[i] = undefined
      }
      if (!entry.sampled) pending.delete(alias)
      entry.sampled = false
    }
    return out
  }

  // Put back after a failed write, less what the store would no longer keep at `now` (its period's retention): a
  // store that stays down must not grow memory with buckets no page shows (~1,700 a route an hour).
  const restore = (deltas: ReadonlyArray<Bucket>, now: number) => {
    for (const delta of deltas) {
      if (delta.start >= retentionCutoffOf(delta.period, now)) pendingFor(delta.alias).closed.push(delta)
    }
  }

  const pendingOf = (alias: string, period: UptimePeriod) => {
    const entry = pending.get(alias)
    if (entry === undefined) return []
    const open = entry.open[uptimePeriods.indexOf(period)]
    const closed = entry.closed.filter((bucket) => bucket.period === period)
    return open === undefined ? closed : [...closed, open]
  }

  return { record, drain, restore, pendingOf }
}
