import { Schema } from "effect"

/** Severity of an event. */
export const EventLevel = Schema.Literals(["debug", "info", "warn", "error"]).annotate({ identifier: "EventLevel" })
export type EventLevel = typeof EventLevel.Type

/** An event id: a UUIDv7, so ids sort by creation time. */
export const EventId = Schema.String.check(
  Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
).annotate({ identifier: "EventId", description: "UUIDv7" })

/** Something that happened, e.g. `config/reload`, `health/down`, `docker/start`. */
export const Event = Schema.Struct({
  id: EventId,
  timestamp: Schema.String,
  level: EventLevel,
  category: Schema.String,
  action: Schema.String,
  data: Schema.Record(Schema.String, Schema.Unknown)
}).annotate({ identifier: "Event" })
export type Event = typeof Event.Type

/** What a producer publishes; the bus assigns `id` and `timestamp`. */
export interface EventInput {
  readonly level: EventLevel
  readonly category: string
  readonly action: string
  readonly data?: Record<string, unknown>
}
