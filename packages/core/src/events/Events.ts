import type {
  Event,
  EventInput,
  EventNotFound,
  EventQuery,
  EventsTrimmed,
  SubscriberTooSlow
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"

/** A state change's result and the events that describe it, in order (see `Events.transaction`). */
export interface Recorded<A> {
  readonly value: A
  readonly events: ReadonlyArray<EventInput>
}

/**
 * The event bus: producers publish (with a kind's constructor, e.g. `HealthEvents.down(...)`), the history is
 * durable and capped, consumers read the history or follow it live. The real one is `EventBus.layer`.
 */
export class Events extends Context.Service<
  Events,
  {
    /** Assigns a UUIDv7 id and a timestamp, stores the event, then delivers it to live subscribers. */
    readonly publish: (input: EventInput) => Effect.Effect<Event>
    /**
     * Runs a state change and stores the events it returns in one store transaction: both are stored, or
     * neither; the events are then delivered to live subscribers, in id order. The change's repository must be on
     * the bus's store (the same `SqlClient`) to share the transaction. The bus is held meanwhile, so `change`
     * must not publish (it would wait for itself).
     */
    readonly transaction: <A, E, R>(change: Effect.Effect<Recorded<A>, E, R>) => Effect.Effect<A, E, R>
    /**
     * Stored events matching the query, oldest first (newest last): the newest `limit`, or with `since` the oldest
     * `limit` after it, so reading again from the last one skips none. A `since` the history cannot continue from
     * fails: {@link EventsTrimmed} when it was an event here that the cap dropped (older than every kept event;
     * with `events.history: 0` any but the newest), or when failed sign-ins after it were dropped beyond their
     * share (a read of every category or of `auth`); {@link EventNotFound} when it never was an event of this
     * history (older than its first event, newer than its last, or between two kept ones). The newest event ever
     * published resumes with nothing missed, also when none is kept.
     */
    readonly history: {
      (query: EventQuery & { readonly since?: undefined }): Effect.Effect<ReadonlyArray<Event>>
      (query: EventQuery): Effect.Effect<ReadonlyArray<Event>, EventsTrimmed | EventNotFound>
    }
    /**
     * The matching history, then every new matching event as it is published: no gap and no duplicate
     * between the two. With `since`, the history is every stored event after it (`limit` does not apply: a
     * resume must not skip any), and a `since` the history cannot continue from fails as in `history` — also
     * when the trimming overtakes a long replay — never a silent gap; without, the newest `limit`. A subscriber
     * that falls more than `bufferSize` events behind fails with {@link SubscriberTooSlow} (resume with `since` =
     * the last id received). Ends when the bus shuts down.
     */
    readonly follow: (
      query: EventQuery,
      options?: { readonly bufferSize?: number }
    ) => Stream.Stream<Event, SubscriberTooSlow | EventsTrimmed | EventNotFound>
  }
>()("@gatehouse-edge/core/Events") {}
