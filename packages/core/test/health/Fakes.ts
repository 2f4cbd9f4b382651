import type { Event, EventInput, HealthMap } from "@gatehouse-edge/contract/domain"
import { RouteNotFound } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Option, Ref, Stream, SubscriptionRef } from "effect"
import { Events } from "../../src/events/Events.js"
import { Health } from "../../src/health/Health.js"
import { type RouteRecord, Routes } from "../../src/routes/Routes.js"

/** A `Routes` backed by a `SubscriptionRef` the test sets. */
export const routesLayer = (table: SubscriptionRef.SubscriptionRef<ReadonlyArray<RouteRecord>>) =>
  Layer.succeed(Routes)(
    Routes.of({
      list: SubscriptionRef.get(table),
      get: (alias) =>
        Effect.flatMap(SubscriptionRef.get(table), (rs) => {
          const found = rs.find((r) => r.route.alias === alias)
          return found ? Effect.succeed(found) : Effect.fail(new RouteNotFound({ alias }))
        }),
      changes: SubscriptionRef.changes(table),
      reload: Effect.succeed({ added: [], removed: [], changed: [], issues: [] }),
      // Reports nothing, so the server's own entry stays out of the maps these tests compare.
      problems: Stream.never
    })
  )

/** An `Events` that only records what was published. */
export const eventsLayer = (published: Ref.Ref<ReadonlyArray<Event>>) => {
  const publish = (input: EventInput) =>
    Effect.gen(function* () {
      const all = yield* Ref.get(published)
      const event = {
        ...input,
        id: `00000000-0000-7000-8000-${String(all.length).padStart(12, "0")}`,
        timestamp: new Date(0).toISOString()
      } as Event
      yield* Ref.update(published, (es) => [...es, event])
      return event
    })
  return Layer.succeed(Events)(
    Events.of({
      publish,
      transaction: (change) =>
        Effect.flatMap(change, ({ value, events }) => Effect.as(Effect.forEach(events, publish), value)),
      history: () => Ref.get(published),
      follow: () => Stream.empty
    })
  )
}

/** Fails the test (with the last map) instead of hanging when `health.changes` never satisfies `pred`. */
export const waitForHealth = (what: string, pred: (m: HealthMap) => boolean, ms = 5000) =>
  Effect.gen(function* () {
    const health = yield* Health
    return yield* health.changes.pipe(
      Stream.filter(pred),
      Stream.runHead,
      Effect.map(Option.getOrThrow),
      Effect.timeoutOrElse({
        duration: ms,
        orElse: () =>
          Effect.flatMap(health.snapshot, (m) =>
            Effect.die(new Error(`timed out waiting for ${what}; last map: ${JSON.stringify(m)}`))
          )
      })
    )
  })
