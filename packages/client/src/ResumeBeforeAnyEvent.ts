import type { EventsQuery } from "./GatehouseStreams.js"

// The largest `limit` the contract takes (`Limit`: 1–1000).
const LARGEST_LIMIT = 1000

/**
 * The query an events watch reconnects with when it has not delivered any event yet (none matched so far, or the
 * connection dropped before the first came). The query asked again would give only its newest `limit`: more
 * matching events published while the watch was away would be missed without a word.
 *
 * `newest` is the newest event of any category when the watch started, taken before its first connection. Resumed
 * after it (`since`, which the server takes of any category, and which lifts `limit`: a resume skips nothing), with
 * the query's own filter, every matching event published since the watch started comes, each once. What does not
 * come again is the matching history from before it, which only the first connection shows.
 *
 * `undefined`: the history held no event when the watch started, so every event it holds now came after. With no id
 * to resume from, the query is asked again with the largest `limit`: nothing is missed unless more matching events
 * than that came while away. (With `events.history: 0` the server keeps none: nothing published while away can come.)
 */
export const resumeBeforeAnyEvent = (query: EventsQuery, newest: string | undefined): EventsQuery =>
  newest === undefined ? { ...query, limit: LARGEST_LIMIT } : { ...query, since: newest }
