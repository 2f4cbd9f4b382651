import type { Route, ValidationIssue } from "@gatehouse-edge/contract/domain"
import { HealthEvents, type HealthInfo, type HealthMap, ServerHealthKey } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"
import { Events } from "../events/Events.js"
import { publishOrLog } from "../events/PublishOrLog.js"
import { GuestLocator, type GuestLocatorShape } from "../hypervisor/GuestLocator.js"
import { type RouteRecord, Routes } from "../routes/Routes.js"
import type { CheckResult } from "./CheckResult.js"
import { containerMonitor } from "./ContainerMonitor.js"
import { Health } from "./Health.js"
import { makeHealthFeed } from "./HealthFeed.js"
import {
  applyResult,
  eventOf,
  initialHealth,
  type RouteHealth,
  restartedHealth,
  type Transition,
  toInfo
} from "./HealthState.js"
import { type Monitor, monitorFor } from "./Monitor.js"
import { Serving } from "./Serving.js"

/**
 * One route's entry. `id` names the monitor instance allowed to write it; `key` is its config (null: none).
 * `health` is replaced in place by that monitor: with a thousand routes checking every few seconds, copying the
 * whole table per result would make every check cost O(routes).
 */
interface Slot {
  readonly id: number
  readonly key: string | null
  /** The monitor's lineage (see `Monitor.lineage`): a replacement of the same lineage keeps `health`. */
  readonly lineage: string | null
  health: RouteHealth
}

const MIN_INTERVAL_MS = 10
const FIRST_CHECK_SPREAD_MS = 1000
// Watchers get at most one map per second: statuses are what they follow, and a flapping route must not flood them.
const FEED_INTERVAL_MS = 1000

// Checks wake up on a shared grid of a tenth of their interval (at most 100 ms): those due within the same step run
// in one wake-up of the event loop. With 1,000 routes at scattered milliseconds the idle server woke ~59 times a
// second; on the grid ~7, for 6.2% of a core instead of 7.3% (bench/README.md, "Idle cost").
const GRID_MAX_MS = 100
const gridOf = (intervalMs: number) => Math.max(1, Math.min(GRID_MAX_MS, Math.floor(intervalMs / 10)))

/** The delay from `now` to the first point of the grid at least `minimumMs` away. */
export const delayToGrid = (now: number, minimumMs: number, gridMs: number): number =>
  minimumMs + ((gridMs - ((now + minimumMs) % gridMs)) % gridMs)

const sleepToGrid = (minimumMs: number, gridMs: number) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sleep(Duration.millis(delayToGrid(now, minimumMs, gridMs))))

// Each monitor starts at a random point of its first second: a thousand routes loaded at once do not all check in
// the same instant (nor stay in step afterwards). The second is counted from the moment the server listens (`run`).
const firstCheckDelay = (intervalMs: number) =>
  Effect.flatMap(Random.nextIntBetween(0, Math.max(1, Math.min(FIRST_CHECK_SPREAD_MS, intervalMs))), (ms) =>
    sleepToGrid(ms, gridOf(intervalMs))
  )

/**
 * A route whose target is a Proxmox VE container that is not running is unhealthy without a probe: the cache
 * already knows, and the probe would only time out. Otherwise the route's own check runs.
 */
const guestAware = (
  locator: GuestLocatorShape | undefined,
  route: Route,
  check: Effect.Effect<CheckResult>
): Effect.Effect<CheckResult> =>
  locator === undefined
    ? check
    : Effect.flatMap(locator.locate(route), (found) =>
        found === undefined || found.vmid === 0 || found.status === "running"
          ? check
          : Effect.succeed<CheckResult>({
              status: "unhealthy",
              latency_ms: 0,
              error: `container ${found.vmid} on node ${found.node} is ${found.status}`
            })
      )

/**
 * A route's monitor with {@link guestAware}'s check. Its key adds what the lookup reads beyond the probe's own
 * fields (host and port): the route's `proxmox` pin, else its alias. A route pointed at another guest thus gets a
 * new monitor that follows that guest, instead of keeping the old one, which follows the old guest.
 */
const guestAwareMonitor = (locator: GuestLocatorShape | undefined, route: Route, monitor: Monitor): Monitor =>
  locator === undefined
    ? monitor
    : {
        ...monitor,
        check: guestAware(locator, route, monitor.check),
        key: JSON.stringify(["guest", monitor.key, route.proxmox ?? null, route.alias])
      }

/**
 * Builds the real Health service: follows the route table and runs one monitor fiber per monitored route.
 * Every fiber lives in the layer's scope, so closing the layer stops every monitor and its socket.
 */
export const make: Effect.Effect<Health["Service"], never, Routes | Events | Scope.Scope> = Effect.gen(function* () {
  const routes = yield* Routes
  const events = yield* Events
  const publishHealth = publishOrLog(events, "health")
  const locator = yield* GuestLocator
  const serving = yield* Serving
  // A route's monitor, unless it has none or is excluded from serving (then its health is `unknown`).
  // A route whose target is a container follows the container (see `containerMonitor`).
  const monitorOf = (record: RouteRecord): Option.Option<Monitor> =>
    record.excluded
      ? Option.none()
      : Option.map(monitorFor(record.route), (m) =>
          record.container === undefined
            ? guestAwareMonitor(locator, record.route, m)
            : containerMonitor(record.route, record.container, m)
        )
  // Only touched inside synchronous blocks, so each read or write of it is atomic with respect to other fibers.
  const table = new Map<string, Slot>()
  // Bumped on every status or route-set change; `changes` turns each bump into a fresh map.
  const generation = yield* SubscriptionRef.make(0)
  const monitors = yield* FiberMap.make<string>()
  const nextId = yield* Ref.make(0)
  const bump = SubscriptionRef.update(generation, (n) => n + 1)

  // Sorted by alias so every consumer (JSON frames, CLI output) sees a stable order; re-sorted on route changes.
  let aliases: ReadonlyArray<string> = []
  // The server's own entry (`@gatehouse`): present, with status `error`, while a route source has a problem.
  let server: RouteHealth | undefined
  const snapshot: Effect.Effect<HealthMap> = Effect.map(Clock.currentTimeMillis, (now) => {
    const map: Record<string, HealthInfo> = {}
    if (server !== undefined) map[ServerHealthKey] = toInfo(server, now)
    for (const alias of aliases) map[alias] = toInfo(table.get(alias)!.health, now)
    return map
  })

  // The entry is there only while something is wrong, so a healthy server's map lists exactly its routes.
  const recordProblems = Effect.fnUntraced(function* (problems: ReadonlyArray<ValidationIssue>) {
    const now = yield* Clock.currentTimeMillis
    const before = server
    server =
      problems.length === 0
        ? undefined
        : {
            ...initialHealth(true, now),
            status: "error",
            since_ms: before?.since_ms ?? now,
            last_check_ms: now,
            last_check: DateTime.formatIso(DateTime.makeUnsafe(now)),
            error: `${problems.length} problem(s) in the route sources (see the config/error events)`
          }
    if (before !== server) yield* bump
  })

  const publish = (alias: string, t: Transition): Effect.Effect<void> => {
    const kind = eventOf(t)
    if (kind === undefined) return Effect.void
    const data = {
      alias,
      status: t.next,
      previous: t.previous,
      latency_ms: t.result.latency_ms,
      ...(t.result.error === undefined ? {} : { error: t.result.error })
    }
    // A failing event store must not stop health checking.
    return publishHealth(kind === "down" ? HealthEvents.down(data) : HealthEvents.up(data))
  }

  const record = Effect.fnUntraced(function* (alias: string, id: number, result: CheckResult, retries: number) {
    const now = yield* Clock.currentTimeMillis
    const transition = yield* Effect.sync((): Transition | undefined => {
      const slot = table.get(alias)
      // The route was removed or its monitor replaced while this check ran: the result is stale.
      if (slot === undefined || slot.id !== id) return undefined
      const applied = applyResult(slot.health, result, retries, now)
      slot.health = applied.health
      return applied.transition
    })
    if (transition !== undefined) {
      // Event first, then the bump: whoever sees the new status in `changes` can already find its event.
      yield* publish(alias, transition)
      yield* bump
    }
  })

  const run = (alias: string, id: number, monitor: Monitor): Effect.Effect<void> => {
    // The floor only guards against a hot loop from a hand-built route; validation already requires at least 1 s.
    const intervalMs = Math.max(MIN_INTERVAL_MS, monitor.healthcheck.interval_ms)
    const grid = gridOf(intervalMs)
    const checkAndRecord = monitor.check.pipe(
      Effect.flatMap((result) => record(alias, id, result, monitor.healthcheck.retries)),
      Effect.withSpan("Health.check", { attributes: { alias } })
    )
    // No check before the server's listeners are bound: a route that targets the server itself could go down on a
    // refused connection at a restart (a starting route goes down on its first failure).
    const firstCheck = Effect.andThen(
      serving.whenListening,
      monitor.immediate === true ? Effect.void : firstCheckDelay(intervalMs)
    )
    return Effect.andThen(
      firstCheck,
      // The next check starts an interval (rounded up to the grid) after the previous one ended: checks never overlap.
      Effect.forever(Effect.andThen(checkAndRecord, sleepToGrid(intervalMs, grid)))
    )
  }

  // A replacement of the same lineage keeps the route's health; any other starts afresh, yet an edited route stays,
  // for events, in the status it was reported in (see `restartedHealth`).
  const healthOf = (existing: Slot | undefined, key: string | null, lineage: string | null, now: number) =>
    existing === undefined
      ? initialHealth(key !== null, now)
      : lineage !== null && existing.lineage === lineage
        ? existing.health
        : restartedHealth(existing.health, key !== null, now)

  const sync = Effect.fn("Health.sync")(function* (records: ReadonlyArray<RouteRecord>) {
    const now = yield* Clock.currentTimeMillis
    const current = table
    const wanted = new Map(records.map((r) => [r.route.alias, monitorOf(r)] as const))
    const removed = [...current.keys()].filter((alias) => !wanted.has(alias))
    const fresh: Array<{ alias: string; slot: Slot; monitor: Monitor | undefined }> = []
    for (const [alias, monitor] of wanted) {
      const key = Option.match(monitor, { onNone: () => null, onSome: (m) => m.key })
      const lineage = Option.match(monitor, { onNone: () => null, onSome: (m) => m.lineage ?? m.key })
      const existing = current.get(alias)
      if (existing !== undefined && existing.key === key) continue
      const id = yield* Ref.getAndUpdate(nextId, (n) => n + 1)
      fresh.push({
        alias,
        slot: { id, key, lineage, health: healthOf(existing, key, lineage, now) },
        monitor: Option.getOrUndefined(monitor)
      })
    }
    if (removed.length === 0 && fresh.length === 0) return
    // Only touched aliases are replaced: monitors keep writing the others concurrently.
    yield* Effect.sync(() => {
      for (const alias of removed) table.delete(alias)
      for (const { alias, slot } of fresh) table.set(alias, slot)
      aliases = [...table.keys()].sort()
    })
    for (const alias of removed) yield* FiberMap.remove(monitors, alias)
    for (const { alias, slot, monitor } of fresh) {
      if (monitor === undefined) yield* FiberMap.remove(monitors, alias)
      else yield* FiberMap.run(monitors, alias, run(alias, slot.id, monitor))
    }
    yield* bump
  })

  // Seed from the current table so the first snapshot already lists every route, then follow reloads.
  yield* sync(yield* routes.list)
  yield* routes.changes.pipe(Stream.runForEach(sync), Effect.forkScoped)
  yield* routes.problems.pipe(Stream.runForEach(recordProblems), Effect.forkScoped)

  const changes = yield* makeHealthFeed({
    snapshot,
    signals: SubscriptionRef.changes(generation),
    intervalMs: FEED_INTERVAL_MS
  })
  return Health.of({ snapshot, changes })
})

/** The real service: follows `Routes`, runs one monitor per route, publishes `health/up|down` to `Events`. */
export const layer: Layer.Layer<Health, never, Routes | Events> = Layer.effect(Health, make)
