import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/**
 * A resume's `since` is older than every event the history still keeps: the cap (`events.history`) dropped it, and
 * events after it may have gone with it, so a resume would skip them unnoticed. Resuming again cannot help: the
 * client re-reads the state it mirrors and follows without `since`. 410; a stream that ends this way closes with 1008.
 */
export class EventsTrimmed extends ApiError<EventsTrimmed>()("EventsTrimmed", {
  code: "gone",
  fields: {
    since: Schema.String,
    /** The oldest event the history keeps, where what it can replay starts; null when it keeps none. */
    oldest_id: Schema.NullOr(Schema.String)
  },
  // Also a WebSocket close reason: at most 123 bytes.
  message: (e) => `events after ${e.since} were dropped from the history (its cap): follow again without since`
}) {}

/**
 * A resume's `since` is no event of this history, and not one it dropped: it is newer than the oldest kept event
 * (an id from another server, or from before the store was reset or restored). Nothing says what the client
 * missed: it re-reads the state it mirrors and follows without `since`. 404; a stream closes with 1008.
 */
export class EventNotFound extends ApiError<EventNotFound>()("EventNotFound", {
  code: "not_found",
  fields: { since: Schema.String },
  message: (e) => `no event ${e.since} in the history: follow again without since`
}) {}
