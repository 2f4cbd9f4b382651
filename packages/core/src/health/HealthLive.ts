import { Clock, Effect, FiberMap, Option, Ref, Schedule, type Scope, Stream, SubscriptionRef } from "effect"
import type { HealthInfo, HealthMap } from "../domain/Health.js"
import { Events } from "../events/Events.js"
import { type RouteRecord, Routes } from "../routes/Routes.js"
import type { CheckResult } from "./CheckResult.js"
import type { Health } from "./Health.js"
import { applyResult, eventOf, initialHealth, type RouteHealth, type Transition, toInfo } from "./HealthState.js"
import { type Monitor, monitorFor } from "./Monitor.js"

/** One route's entry. `id` names the monitor instance allowed to write it; `key` is its config (null: none). */
interface Slot {
  readonly id: number
  readonly key: string | null
  readonly health: RouteHealth
}

/** Two maps that differ only in latency, uptime or check time are the same as far as `changes` is concerned. */
const sameStatuses = (a: HealthMap, b: HealthMap): boolean => {
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((alias) => b[alias]?.status === a[alias]?.status)
}

const MIN_INTERVAL_MS = 10

/** A route's monitor, unless it has none or is excluded from serving (then its health is `unknown`). */
const monitorOf = (record: RouteRecord): Option.Option<Monitor> =>
  record.excluded ? Option.none() : monitorFor(record.route)

/**
 * Builds the real Health service: follows the route table and runs one monitor fiber per monitored route.
 * Every fiber lives in the layer's scope, so closing the layer stops every monitor and its socket.
 */
export const makeHealth: Effect.Effect<Health["Service"], never, Routes | Events | Scope.Scope> = Effect.gen(
  function* () {
    const routes = yield* Routes
    const events = yield* Events
    const table = yield* Ref.make<ReadonlyMap<string, Slot>>(new Map())
    // Bumped on every status or route-set change; `changes` turns each bump into a fresh map.
    const generation = yield* SubscriptionRef.make(0)
    const monitors = yield* FiberMap.make<string>()
    const nextId = yield* Ref.make(0)
    const bump = SubscriptionRef.update(generation, (n) => n + 1)

    const snapshot: Effect.Effect<HealthMap> = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const current = yield* Ref.get(table)
      const map: Record<string, HealthInfo> = {}
      // Sorted by alias so every consumer (JSON frames, CLI output) sees a stable order.
      for (const alias of [...current.keys()].sort()) map[alias] = toInfo(current.get(alias)!.health, now)
      return map
    })

    const publish = (alias: string, t: Transition): Effect.Effect<void> => {
      const kind = eventOf(t)
      if (kind === undefined) return Effect.void
      return events
        .publish({
          level: kind === "down" ? "warn" : "info",
          category: "health",
          action: kind,
          data: {
            alias,
            status: t.next,
            previous: t.previous,
            latency_ms: t.result.latency_ms,
            ...(t.result.error === undefined ? {} : { error: t.result.error })
          }
        })
        .pipe(
          Effect.asVoid,
          // A failing event store must not stop health checking.
          Effect.catchDefect((defect) => Effect.logWarning("health event not published", defect))
        )
    }

    const record = Effect.fnUntraced(function* (alias: string, id: number, result: CheckResult, retries: number) {
      const now = yield* Clock.currentTimeMillis
      const transition = yield* Ref.modify(table, (current): [Transition | undefined, ReadonlyMap<string, Slot>] => {
        const slot = current.get(alias)
        // The route was removed or its monitor replaced while this check ran: the result is stale.
        if (slot === undefined || slot.id !== id) return [undefined, current]
        const applied = applyResult(slot.health, result, retries, now)
        return [applied.transition, new Map(current).set(alias, { ...slot, health: applied.health })]
      })
      if (transition !== undefined) {
        // Event first, then the bump: whoever sees the new status in `changes` can already find its event.
        yield* publish(alias, transition)
        yield* bump
      }
    })

    const run = (alias: string, id: number, monitor: Monitor): Effect.Effect<void> =>
      monitor.check.pipe(
        Effect.flatMap((result) => record(alias, id, result, monitor.healthcheck.retries)),
        Effect.withSpan("Health.check", { attributes: { alias } }),
        // `spaced`: the next check starts an interval after the previous one ended, so checks never overlap.
        // The floor only guards against a hot loop from a hand-built route; validation already requires ≥ 1 s.
        Effect.repeat(Schedule.spaced(Math.max(MIN_INTERVAL_MS, monitor.healthcheck.interval_ms))),
        Effect.asVoid
      )

    const sync = Effect.fn("Health.sync")(function* (records: ReadonlyArray<RouteRecord>) {
      const now = yield* Clock.currentTimeMillis
      const current = yield* Ref.get(table)
      const wanted = new Map(records.map((r) => [r.route.alias, monitorOf(r)] as const))
      const removed = [...current.keys()].filter((alias) => !wanted.has(alias))
      const fresh: Array<{ alias: string; slot: Slot; monitor: Monitor | undefined }> = []
      for (const [alias, monitor] of wanted) {
        const key = Option.match(monitor, { onNone: () => null, onSome: (m) => m.key })
        const existing = current.get(alias)
        if (existing !== undefined && existing.key === key) continue
        const id = yield* Ref.getAndUpdate(nextId, (n) => n + 1)
        fresh.push({
          alias,
          slot: { id, key, health: initialHealth(key !== null, now) },
          monitor: Option.getOrUndefined(monitor)
        })
      }
      if (removed.length === 0 && fresh.length === 0) return
      // Only touched aliases are replaced: monitors keep writing the others concurrently.
      yield* Ref.update(table, (t) => {
        const next = new Map(t)
        for (const alias of removed) next.delete(alias)
        for (const { alias, slot } of fresh) next.set(alias, slot)
        return next
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

    return {
      snapshot,
      changes: SubscriptionRef.changes(generation).pipe(
        Stream.mapEffect(() => snapshot),
        Stream.changesWith(sameStatuses)
      )
    }
  }
)
