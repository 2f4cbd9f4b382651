import { Context, Data, type Effect, type Stream } from "effect"
import type { Event, EventInput } from "../domain/Event.js"

/** Which events to read: after the event `since` (exclusive), at most `limit` (newest kept), of one `category`. */
export interface EventQuery {
  readonly since?: string | undefined
  readonly limit?: number | undefined
  readonly category?: string | undefined
}

/**
 * The event bus: producers publish, the history is durable (in the {@link Store}) and capped,
 * consumers read the history or follow it live. Implemented by `EventBus.layer({ historyCap })`.
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

/** A live subscriber did not keep up and was dropped so it could not block the others. */
export class SubscriberTooSlow extends Data.TaggedError("SubscriberTooSlow")<{ readonly bufferSize: number }> {
  override get message() {
    return `subscriber fell more than ${this.bufferSize} events behind`
  }
}
