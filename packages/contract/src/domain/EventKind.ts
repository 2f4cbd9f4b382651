import * as Schema from "effect/Schema"

/** Severity of an event. */
export const EventLevel = Schema.Literals(["debug", "info", "warn", "error"]).annotate({ identifier: "EventLevel" })
export type EventLevel = typeof EventLevel.Type

/** An event id: a UUIDv7, so ids sort by creation time. */
export const EventId = Schema.String.check(
  Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, {
    message: "expected an event id (a UUIDv7, in lower case)"
  })
).annotate({ identifier: "EventId", description: "UUIDv7" })

/** What a producer publishes for one kind of event; the bus assigns `id` and `timestamp`. */
export interface EventInputOf<C extends string, A extends string, D> {
  readonly level: EventLevel
  readonly category: C
  readonly action: A
  readonly data: D
}

/**
 * Declares one kind of event, `category/action`, with the schema of its `data` and the level it is published at.
 * The result carries the schema of the whole stored/streamed event (for the history, the client and OpenAPI) and
 * `make`, the constructor every producer uses, so a payload is never built by hand in two places.
 * `data` schemas must be plain JSON (their encoded form equals their type): events are stored as JSON.
 */
export const defineEvent = <const C extends string, const A extends string, D extends Schema.Top>(
  category: C,
  action: A,
  options: { readonly level: EventLevel; readonly data: D; readonly identifier: string; readonly description: string }
) => {
  const schema = Schema.Struct({
    id: EventId,
    timestamp: Schema.String,
    level: EventLevel,
    category: Schema.Literal(category),
    action: Schema.Literal(action),
    data: options.data
  }).annotate({ identifier: options.identifier, description: `${category}/${action}: ${options.description}` })
  const make = (data: D["Type"]): EventInputOf<C, A, D["Type"]> => ({
    level: options.level,
    category,
    action,
    data
  })
  return { category, action, level: options.level, schema, make } as const
}
