import type { UptimePeriod } from "@gatehouse-edge/contract/domain"
import { type HealthMap, ServerHealthKey } from "@gatehouse-edge/contract/domain"
import { addCounts, addSample, type Bucket, bucketStartOf, emptyCounts, uptimePeriods } from "./UptimeBuckets.js"

type MutableBucket = { -readonly [K in keyof Bucket]: Bucket[K] }

/** One route's samples not yet in the store: the open bucket of each period, and buckets closed since. */
interface Pending {
  readonly open: Array<MutableBucket | undefined>
  readonly closed: Array<Bucket>
}

/** Samples counted in memory until the next flush (see {@link makeUptimeRecorder}). */
export interface UptimeRecorder {
  /** Counts one sample of every route in the map at `now` into the buckets of every period. */
  readonly record: (health: HealthMap, now: number) => void
  /** Everything counted since the last drain, as bucket deltas for the store; the recorder starts empty again. */
  readonly drain: () => ReadonlyArray<Bucket>
  /** Puts drained deltas back (their write failed), to be written with the next drain. */
  readonly restore: (deltas: ReadonlyArray<Bucket>) => void
  /** The route's counts not yet in the store, for `period`. */
  readonly pendingOf: (alias: string, period: UptimePeriod) => ReadonlyArray<Bucket>
}

/**
 * The recorder: a second's sample of a thousand routes is five thousand counter increments in memory; the store
 * sees each bucket's counts once per flush, as additions (see `UptimeRepository.add`), never one write per sample.
 * A crash loses what was counted since the last flush and nothing else.
 */
export const makeUptimeRecorder = (): UptimeRecorder => {
  let pending = new Map<string, Pending>()

  const pendingFor = (alias: string): Pending => {
    let entry = pending.get(alias)
    if (entry === undefined) {
      entry = { open: uptimePeriods.map(() => undefined), closed: [] }
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
      for (let i = 0; i < uptimePeriods.length; i++) {
        const period = uptimePeriods[i]!
        const start = bucketStartOf(period, now)
        let bucket = entry.open[i]
        if (bucket === undefined || bucket.start !== start) {
          if (bucket !== undefined) entry.closed.push(bucket)
          bucket = { period, alias, start, ...emptyCounts() }
          entry.open[i] = bucket
        }
        addSample(bucket, info.status, info.latency_ms)
      }
    }
  }

  // A fresh map per flush: routes that went away leave nothing behind in memory. Deltas of the same bucket (one
  // put back after a failed write, or a clock that stepped back) are merged: PostgreSQL refuses a statement that
  // updates the same row twice.
  const drain = () => {
    const out: Array<Bucket> = []
    for (const entry of pending.values()) {
      const open = entry.open.filter((bucket) => bucket !== undefined)
      // The open buckets are of different periods: only closed ones can repeat a key.
      if (entry.closed.length === 0) {
        out.push(...open)
        continue
      }
      const merged = new Map<string, MutableBucket>()
      for (const bucket of [...entry.closed, ...open]) {
        const key = `${bucket.period}@${bucket.start}`
        const into = merged.get(key)
        if (into === undefined) merged.set(key, { ...bucket })
        else addCounts(into, bucket)
      }
      out.push(...merged.values())
    }
    pending = new Map()
    return out
  }

  const restore = (deltas: ReadonlyArray<Bucket>) => {
    for (const delta of deltas) pendingFor(delta.alias).closed.push(delta)
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
