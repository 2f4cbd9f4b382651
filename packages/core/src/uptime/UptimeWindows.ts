import type { UptimePeriod } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { pointOf, type TimedCounts } from "./UptimeAggregation.js"
import { addCounts, type Bucket, bucketStartOf, emptyCounts, windowStartOf } from "./UptimeBuckets.js"
import type { UptimeRecorder } from "./UptimeRecorder.js"
import type { UptimeRepository } from "./UptimeRepository.js"

/** One route's closed buckets of one period, oldest first, each with its point already rendered. */
interface ClosedBuckets {
  readonly buckets: Array<TimedCounts>
  /** Every closed bucket before this start is in `buckets` (those still inside the window). */
  upTo: number
  lastUsed: number
}

/** The buckets of routes in the window of a period (see {@link makeUptimeWindows}). */
export interface UptimeWindows {
  /**
   * Each alias's buckets of `period` in the window at `now`, oldest first (the current one last, when it has
   * samples). Reads the store and the recorder: run it where no flush moves counts between them.
   */
  readonly bucketsOf: (
    period: UptimePeriod,
    aliases: ReadonlyArray<string>,
    now: number
  ) => Effect.Effect<ReadonlyMap<string, ReadonlyArray<TimedCounts>>>
  /** Forgets routes nobody asked about since `before`. */
  readonly evict: (before: number) => void
}

/**
 * The window of a page, read incrementally. A closed bucket never changes (samples only land in the current one),
 * so each route's closed buckets are read from the store once, with their points rendered once, and only the
 * buckets that closed since are read later; the current bucket is read on every call. A watcher's page each second
 * is then one row per route, not a hundred. Kept only for routes someone reads, forgotten after `evict`.
 */
export const makeUptimeWindows = (repository: UptimeRepository["Service"], recorder: UptimeRecorder): UptimeWindows => {
  const cache = new Map<string, ClosedBuckets>()

  // The counts of `aliases` in [from, to] from the store and from the recorder's deltas not yet written.
  const countsIn = Effect.fnUntraced(function* (
    period: UptimePeriod,
    aliases: ReadonlyArray<string>,
    from: number,
    to: number
  ) {
    const byAlias = new Map<string, Map<number, TimedCounts>>(aliases.map((alias) => [alias, new Map()]))
    const add = (bucket: Bucket) => {
      if (bucket.start < from || bucket.start > to) return
      const buckets = byAlias.get(bucket.alias)!
      let into = buckets.get(bucket.start)
      if (into === undefined) {
        into = { start: bucket.start, counts: emptyCounts() }
        buckets.set(bucket.start, into)
      }
      addCounts(into.counts, bucket)
    }
    for (const bucket of yield* repository.read(period, aliases, from, to)) add(bucket)
    for (const alias of aliases) for (const bucket of recorder.pendingOf(alias, period)) add(bucket)
    return byAlias
  })

  const bucketsOf = Effect.fnUntraced(function* (period: UptimePeriod, aliases: ReadonlyArray<string>, now: number) {
    const current = bucketStartOf(period, now)
    const from = windowStartOf(period, now)
    // Routes whose closed buckets lag behind, grouped by where the missing ones start (one read per group).
    const behind = new Map<number, Array<string>>()
    const entries = aliases.map((alias) => {
      const key = `${period}\u0000${alias}`
      let entry = cache.get(key)
      // New, or the clock stepped back: read the whole window again.
      if (entry === undefined || entry.upTo > current) {
        entry = { buckets: [], upTo: from, lastUsed: now }
        cache.set(key, entry)
      }
      entry.lastUsed = now
      const missingFrom = Math.max(entry.upTo, from)
      if (missingFrom < current) behind.set(missingFrom, [...(behind.get(missingFrom) ?? []), alias])
      return entry
    })
    for (const [missingFrom, group] of behind) {
      const read = yield* countsIn(period, group, missingFrom, current - 1)
      for (const alias of group) {
        const entry = cache.get(`${period}\u0000${alias}`)!
        const closed = [...read.get(alias)!.values()].sort((a, b) => a.start - b.start)
        for (const bucket of closed) entry.buckets.push({ ...bucket, point: pointOf(bucket) })
        entry.upTo = current
      }
    }
    const open = yield* countsIn(period, aliases, current, current)
    return new Map(
      aliases.map((alias, i) => {
        const entry = entries[i]!
        // Buckets that left the window.
        while (entry.buckets.length > 0 && entry.buckets[0]!.start < from) entry.buckets.shift()
        const now = open.get(alias)!.get(current)
        return [alias, now === undefined ? entry.buckets : [...entry.buckets, now]] as const
      })
    )
  })

  const evict = (before: number) => {
    for (const [key, entry] of cache) if (entry.lastUsed < before) cache.delete(key)
  }

  return { bucketsOf, evict }
}
