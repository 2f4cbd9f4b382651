import { ConfigEvents, type Event, type EventInput, HealthEvents } from "@gatehouse-edge/core/domain"
import { Effect, Queue } from "effect"

/**
 * An event for tests, told apart by `label`: a `config/reload` that added a route of that name, or with category
 * `health` a `health/up` of that alias. Events are a closed set of kinds, so tests use real ones.
 */
export const testEvent = (label: string, category: "config" | "health" = "config"): EventInput =>
  category === "config"
    ? ConfigEvents.reloaded({ source: "routes", added: [label], removed: [], changed: [] })
    : HealthEvents.up({ alias: label, status: "healthy", previous: "unhealthy", latency_ms: 0 })

/** The label of an event made by {@link testEvent} (events decoded from JSON work too). */
export const labelOf = (event: Pick<Event, "data">): string => {
  const data = event.data as { readonly added?: ReadonlyArray<string>; readonly alias?: string }
  return data.added?.[0] ?? data.alias ?? "?"
}

/** Takes events from `values` until the one labelled `label` (see {@link testEvent}), returning those taken. */
export const takeUntil = <E extends Pick<Event, "data">>(values: Queue.Queue<E>, label: string) =>
  Effect.gen(function* () {
    const taken: Array<E> = []
    for (;;) {
      const event = yield* Queue.take(values)
      taken.push(event)
      if (labelOf(event) === label) return taken
    }
  })
