import { Context, type Effect, type Stream } from "effect"
import type { Event, EventInput } from "../domain/Event.js"
import type { EventQuery } from "../domain/EventQuery.js"
import type { SubscriberTooSlow } from "../domain/StreamErrors.js"

/**
 * The event bus: producers publish (with a kind's constructor, e.g. `HealthEvents.down(...)`), the history is
 * durable and capped, consumers read the history or follow it live. The real one is `EventBus.layer`.
 */
export class Events extends Context.Service<
  Events,
  {
    /** Assigns a UUIDv7 id and a timestamp, stores the event, then delivers it to live subscribers. */
    readonly publish: (input: EventInput) => Effect.Effect<Event>
    /** Stored events matching the query, oldest first (newest last). */
    readonly history: (query: EventQuery) => Effect.Effect<ReadonlyArray<Event>>
    /**
     * The matching history, then every new matching event as it is published: no gap and no duplicate
     * between the two. A subscriber that falls more than `bufferSize` events behind fails with
     * {@link SubscriberTooSlow} (resume with `since` = the last id received). Ends when the bus shuts down.
     */
    readonly follow: (
      query: EventQuery,
      options?: { readonly bufferSize?: number }
    ) => Stream.Stream<Event, SubscriberTooSlow>
  }
>()("@gatehouse-edge/core/Events") {}
