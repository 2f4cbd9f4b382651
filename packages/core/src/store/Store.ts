import { Context, type Effect } from "effect"
import type { Event } from "../domain/Event.js"
import type { EventQuery } from "../domain/EventQuery.js"

/** Durable storage of events. */
export interface EventRepository {
  /** Appends one event and drops the oldest beyond `cap`, in one transaction. */
  readonly append: (event: Event, cap: number) => Effect.Effect<void>
  /** Events matching the query, oldest first; `limit` keeps the newest. */
  readonly list: (query: EventQuery) => Effect.Effect<ReadonlyArray<Event>>
}

/**
 * The server's storage: one interface, with SQLite as the embedded default (a PostgreSQL implementation
 * is later work). Storage failures are unexpected and surface as defects (HTTP 500 / gRPC INTERNAL).
 * Layers: `SqliteStore.layer({ filename })`, and `SqliteStore.layerMemory` for tests.
 */
export class Store extends Context.Service<
  Store,
  {
    readonly events: EventRepository
  }
>()("@gatehouse-edge/core/Store") {}
