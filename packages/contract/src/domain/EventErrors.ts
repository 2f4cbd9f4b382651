import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/**
 * A resume's `since` was an event of this history that the cap (`events.history`) dropped: older than every event
 * it still keeps, or, with `events.history: 0`, any event but the newest. Events after it may have gone with it,
 * so a resume would skip them unnoticed. Also a `since` after which failed sign-ins (`auth/login_failed`, kept to a
 * tenth of the history) were dropped, for a read that includes them. Resuming again cannot help: the client
 * re-reads the state it mirrors and follows without `since`. 410; a stream that ends this way closes with 1008.
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
 * A resume's `since` is no event of this history, and not one it dropped: older than the first event it ever held,
 * newer than its last, or between two kept ones (an id from another server, from before the store was reset or
 * restored, or made up). Nothing says what the client missed: it re-reads the state it mirrors and follows without
 * `since`. 404; a stream closes with 1008.
 */
export class EventNotFound extends ApiError<EventNotFound>()("EventNotFound", {
  code: "not_found",
  fields: { since: Schema.String },
  message: (e) => `no event ${e.since} in the history: follow again without since`
}) {}
