import { type Event, EventCategories } from "@gatehouse-edge/core/domain"
import * as Console from "effect/Console"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { untilCtrlC } from "./Following.js"
import { httpFlags, withClient } from "./HttpConnection.js"
import { followOptions, reconnectFlag } from "./Reconnecting.js"

// A summary longer than this is cut: the line stays readable, `--json` has every field.
const summaryLimit = 160

type Scalar = string | number | boolean

const isScalar = (value: unknown): value is Scalar =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"

// A word as is; a string with spaces or separators quoted, so `key=value` pairs stay apart.
const scalarText = (value: Scalar) =>
  typeof value === "string" && !/^[^\s"=,]+$/.test(value) ? JSON.stringify(value) : String(value)

/**
 * An event's `data` on one line, whatever its kind: `key=value` for each field, lists comma-separated, nested
 * values as compact JSON; empty lists and absent fields are left out.
 */
export const summarizeData = (data: unknown): string => {
  if (typeof data !== "object" || data === null) return data === undefined ? "" : JSON.stringify(data)
  const parts: Array<string> = []
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue
    const text = isScalar(value)
      ? scalarText(value)
      : Array.isArray(value) && value.every(isScalar)
        ? value.map(scalarText).join(",")
        : JSON.stringify(value)
    parts.push(`${key}=${text}`)
  }
  const summary = parts.join(" ")
  return summary.length > summaryLimit ? `${summary.slice(0, summaryLimit - 1)}…` : summary
}

/** One event on one line: id, time, level, `category/action`, and a summary of its data. */
export const formatEvent = (e: Event): string =>
  `${e.id}  ${e.timestamp}  ${e.level.padEnd(5)}  ${`${e.category}/${e.action}`.padEnd(24)}  ${summarizeData(e.data)}`.trimEnd()

const category = Flag.Literals("category", EventCategories).pipe(
  Flag.withDescription(`Only events of this category: ${EventCategories.join(", ")}`),
  Flag.optional
)
const since = Flag.String("since").pipe(
  Flag.withDescription("Only events after this event id (the last one you have): the oldest first"),
  Flag.optional
)

const queryOf = (flags: {
  readonly category: Option.Option<string>
  readonly since: Option.Option<string>
  readonly limit: Option.Option<number>
}) => ({
  ...(Option.isSome(flags.category) ? { category: flags.category.value } : {}),
  // The server reads an id in either case (UUIDs are case-insensitive); the client checks the lower-case form.
  ...(Option.isSome(flags.since) ? { since: flags.since.value.toLowerCase() } : {}),
  ...(Option.isSome(flags.limit) ? { limit: flags.limit.value } : {})
})

const list = Command.make(
  "list",
  {
    ...httpFlags,
    category,
    since,
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("At most this many, 1–1000 (default 100): the newest, or with --since the oldest after it"),
      Flag.optional
    )
  },
  Effect.fn("gatehouse.events.list")(function* (flags) {
    const events = yield* withClient(flags, (c) => c.events.list({ query: queryOf(flags) }))
    if (flags.json) return yield* Console.log(JSON.stringify(events, null, 2))
    if (events.length === 0) return yield* Console.log("no events")
    yield* Effect.forEach(events, (e) => Console.log(formatEvent(e)), { discard: true })
  })
).pipe(Command.withDescription("The event history, newest last (a page; --since ID goes on from an event)"))

const follow = Command.make(
  "follow",
  {
    ...httpFlags,
    category,
    since,
    limit: Flag.Int("limit").pipe(
      Flag.withDescription("Without --since, first the newest this many, 1–1000 (default 100)"),
      Flag.optional
    ),
    reconnect: reconnectFlag
  },
  Effect.fn("gatehouse.events.follow")(function* (flags) {
    // JSON: one event per line, so a reader can act on each as it comes.
    const show = (e: Event) => Console.log(flags.json ? JSON.stringify(e) : formatEvent(e))
    yield* withClient(flags, (c) =>
      untilCtrlC(Stream.runForEach(c.events.watch(queryOf(flags), followOptions(flags.reconnect)), show))
    )
  })
).pipe(
  Command.withDescription(
    "The recent events (or every one after --since), then each new one until Ctrl-C; a reconnect resumes after the last"
  )
)

/** `gatehouse events ...`: the event history and its live stream over the HTTP API. */
export const eventsCommand = Command.make("events").pipe(
  Command.withDescription("Events: list, follow (over HTTP)"),
  Command.withSubcommands([list, follow])
)
