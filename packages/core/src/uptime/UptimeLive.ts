import type { UptimePeriod, UptimeQuery } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as RcMap from "effect/RcMap"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { Health } from "../health/Health.js"
import { Routes } from "../routes/Routes.js"
import { KeyWith } from "../util/KeyWith.js"
import { Uptime } from "./Uptime.js"
import { aggregateRoute } from "./UptimeAggregation.js"
import { bucketWidthMs, retentionCutoffOf, uptimePeriods } from "./UptimeBuckets.js"
import { makeUptimeRecorder } from "./UptimeRecorder.js"
import { UptimeRepository } from "./UptimeRepository.js"
import { type CheckedUptimeQuery, checkUptimeQuery, selectPage } from "./UptimeSelection.js"
import { makeUptimeWindows } from "./UptimeWindows.js"

/** How often every route is sampled (SPEC §4: every second). */
export const sampleIntervalMs = 1000

/**
 * How often the counts are written to the store. Samples are counted in memory and written as one transaction
 * every 5 s (and when the layer closes): a second's sample of a thousand routes would otherwise be 5,000 row
 * updates per second, and writing per bucket close alone would hold a 7.2 h `1mo` bucket in memory for hours.
 * A crash (kill -9, power loss) loses the last 5 s of samples at most.
 */
export const flushIntervalMs = 5000

// Buckets past their retention are deleted at most once a minute per period (or once per bucket, when wider):
// reads never look past the window anyway, so the sweep only bounds the table and need not be exact.
const sweepIntervalMs = (period: UptimePeriod) => Math.max(60_000, bucketWidthMs(period))

// A route's window nobody has read for this long is dropped from memory (read again from the store when asked).
const windowIdleMs = 10 * 60_000

/** How many `watch` streams are open right now: for tests and benchmarks that prove a closed watcher is freed. */
export class UptimeWatcherCount extends Context.Service<UptimeWatcherCount, { readonly get: Effect.Effect<number> }>()(
  "@gatehouse-edge/core/UptimeWatcherCount"
) {}

/** Builds the uptime service: the sampler and the flusher live in the layer's scope. */
export const make: Effect.Effect<
  Context.Context<Uptime | UptimeWatcherCount>,
  never,
  Health | Routes | UptimeRepository | Scope.Scope
> = Effect.gen(function* () {
  const health = yield* Health
  const routes = yield* Routes
  const repository = yield* UptimeRepository
  const recorder = makeUptimeRecorder()
  const windows = makeUptimeWindows(repository, recorder)
  // Bumped after each sample: every watcher builds its next page then.
  const samples = yield* SubscriptionRef.make(0)
  // A flush moves counts from memory to the store: a page read meanwhile would miss them or count them twice.
  const lock = yield* Semaphore.make(1)
  const lastSweep = new Map<UptimePeriod, number>()
  let watchers = 0

  const sample = Effect.gen(function* () {
    const map = yield* health.snapshot
    // The time is read and the sample counted in one step: a page built at a later time finds it counted.
    yield* Clock.clockWith((clock) => Effect.sync(() => recorder.record(map, clock.currentTimeMillisUnsafe())))
    yield* SubscriptionRef.update(samples, (n) => n + 1)
  })

  const write = Effect.gen(function* () {
    const deltas = recorder.drain()
    yield* repository.add(deltas).pipe(
      // A failing store must not stop sampling: the counts are kept and written with the next flush.
      Effect.catchDefect((defect) =>
        Effect.andThen(
          Clock.clockWith((clock) => Effect.sync(() => recorder.restore(deltas, clock.currentTimeMillisUnsafe()))),
          Effect.logWarning("uptime samples not written; retrying with the next flush", defect)
        )
      )
    )
  })

  const sweep = Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    windows.evict(now - windowIdleMs)
    for (const period of uptimePeriods) {
      const last = lastSweep.get(period)
      if (last !== undefined && now - last < sweepIntervalMs(period)) continue
      lastSweep.set(period, now)
      yield* repository
        .deleteBefore(period, retentionCutoffOf(period, now))
        .pipe(Effect.catchDefect((defect) => Effect.logWarning("old uptime buckets not deleted", defect)))
    }
  })

  // Uninterruptible: counts drained from memory are in the store once the flush ends, or back in memory.
  const flush = Effect.uninterruptible(Effect.andThen(lock.withPermits(1)(write), sweep))

  // The figures of `listed` routes over `period`, now.
  const aggregatesOf = Effect.fnUntraced(function* (
    period: UptimePeriod,
    listed: ReadonlyArray<{ readonly alias: string; readonly excluded: boolean }>
  ) {
    const map = yield* health.snapshot
    const now = yield* Clock.currentTimeMillis
    const aliases = listed.map((route) => route.alias)
    const buckets = yield* lock.withPermits(1)(windows.bucketsOf(period, aliases, now))
    return listed.map((route) =>
      aggregateRoute({
        alias: route.alias,
        excluded: route.excluded,
        currentStatus: map[route.alias]?.status ?? "unknown",
        buckets: buckets.get(route.alias)!
      })
    )
  })

  const listed = Effect.map(routes.list, (list) => list.map((r) => ({ alias: r.route.alias, excluded: r.excluded })))

  // One page: only its routes are aggregated.
  const pageOf = Effect.fnUntraced(function* (query: CheckedUptimeQuery) {
    const { total, page } = selectPage(yield* listed, query)
    return { total, data: yield* aggregatesOf(query.period, page) }
  })

  const query = Effect.fn("Uptime.query")(function* (input: UptimeQuery) {
    return yield* pageOf(yield* checkUptimeQuery(input))
  })

  // Every route aggregated over one period after each sample, once, however many queries of that period are
  // watched: a stream per query building its own aggregates let one client with `health:read` and 150 watchers of
  // distinct offsets hold the event loop at 100% (the same query 150 times: 79%).
  const sharedPeriods = yield* RcMap.make({
    lookup: (period: UptimePeriod) =>
      Stream.share(
        SubscriptionRef.changes(samples).pipe(
          // Aggregates slower to build than a second skip samples instead of queueing them.
          Stream.buffer({ capacity: 1, strategy: "sliding" }),
          Stream.mapEffect(() => Effect.flatMap(listed, (routes) => aggregatesOf(period, routes)))
        ),
        { capacity: 1, strategy: "sliding", replay: 1 }
      ),
    idleTimeToLive: Duration.zero
  })

  // One page stream per query, cut from its period's aggregates and shared by all its watchers: one page object
  // per sample, which the transport encodes once for all of them. A late watcher gets the latest page at once.
  const sharedPages = yield* RcMap.make({
    lookup: ({ value: checked }: KeyWith<CheckedUptimeQuery>) =>
      Effect.flatMap(RcMap.get(sharedPeriods, checked.period), (aggregates) =>
        Stream.share(
          Stream.map(aggregates, (all) => {
            const { total, page } = selectPage(all, checked)
            return { total, data: page }
          }),
          { capacity: 1, strategy: "sliding", replay: 1 }
        )
      ),
    idleTimeToLive: Duration.zero
  })

  const watch = Effect.fn("Uptime.watch")(function* (input: UptimeQuery) {
    const checked = yield* checkUptimeQuery(input)
    const counted = Effect.acquireRelease(
      Effect.sync(() => watchers++),
      () => Effect.sync(() => watchers--)
    )
    return Stream.unwrap(Effect.andThen(counted, RcMap.get(sharedPages, new KeyWith(JSON.stringify(checked), checked))))
  })

  // Added before the fibers start, so it runs after they are interrupted: the last samples reach the store.
  yield* Effect.addFinalizer(() => flush)
  // The first sample is taken before the layer is up, so its time is the start time.
  yield* sample
  yield* Effect.sleep(sampleIntervalMs).pipe(
    Effect.andThen(Effect.repeat(sample, Schedule.fixed(sampleIntervalMs))),
    Effect.forkScoped
  )
  yield* Effect.sleep(flushIntervalMs).pipe(Effect.andThen(flush), Effect.forever, Effect.forkScoped)
  return Context.make(Uptime, Uptime.of({ query, watch })).pipe(
    Context.add(UptimeWatcherCount, UptimeWatcherCount.of({ get: Effect.sync(() => watchers) }))
  )
})

/**
 * The real service: samples `Health` every second, keeps the counts per period in the store (`UptimeRepository`),
 * lists the routes of `Routes` (excluded ones too) with their current health.
 */
export const layer: Layer.Layer<Uptime | UptimeWatcherCount, never, Health | Routes | UptimeRepository> =
  Layer.effectContext(make)
