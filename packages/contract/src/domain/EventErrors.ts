import * as Schema from "effect/Schema"
import { ApiError, type ApiErrorStatics } from "./ApiError.js"
import { closeCodeOf } from "./ErrorCode.js"

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
    /**
     * The oldest event the history keeps, where what it can replay starts; null when it keeps none, or when the
     * error was read from a stream's close (see {@link eventsResumeErrorOfClose}), whose reason has no room for it.
     */
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

// The message of `error` split around its `since` (a marker in its place): what a close reason holds before and after.
const aroundSince = (error: { readonly apiError: ApiErrorStatics }) => {
  const marker = "\u0000"
  const [before = "", after = ""] = error.apiError.describe({ since: marker, oldest_id: null }).split(marker)
  return { code: closeCodeOf(error.apiError.code), before, after }
}

const sinceIn = (shape: ReturnType<typeof aroundSince>, code: number, reason: string): string | undefined =>
  code === shape.code &&
  reason.length > shape.before.length + shape.after.length &&
  reason.startsWith(shape.before) &&
  reason.endsWith(shape.after)
    ? reason.slice(shape.before.length, reason.length - shape.after.length)
    : undefined

const trimmedClose = aroundSince(EventsTrimmed)
const notFoundClose = aroundSince(EventNotFound)

/**
 * The resume error an events stream closed with, read back from its close: the server closes a stream that fails
 * with the error's close code and its message as the reason, e.g. a replay the trimming overtook (a `since` refused
 * before the upgrade is an HTTP error body instead). `undefined` for any other close. The reason is read by the
 * messages above, so it follows their wording; it has no room for `oldest_id`, which is null.
 */
export const eventsResumeErrorOfClose = (code: number, reason: string): EventsTrimmed | EventNotFound | undefined => {
  const trimmed = sinceIn(trimmedClose, code, reason)
  if (trimmed !== undefined) return new EventsTrimmed({ since: trimmed, oldest_id: null })
  const notFound = sinceIn(notFoundClose, code, reason)
  return notFound === undefined ? undefined : new EventNotFound({ since: notFound })
}
