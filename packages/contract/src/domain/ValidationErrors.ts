import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/**
 * Large documents are validated by a small pool of worker threads with a bounded queue; when the queue is full a
 * new large document is refused (429, WebSocket 1013 "try again later") rather than kept waiting in memory.
 */
export class ValidationQueueFull extends ApiError<ValidationQueueFull>()("ValidationQueueFull", {
  code: "rate_limited",
  fields: { queued: Schema.Int },
  message: (e) => `the server is busy validating other large documents (${e.queued} waiting); retry later`
}) {}

/** Validating one document took longer than its time budget; the work was stopped (504). */
export class ValidationTimedOut extends ApiError<ValidationTimedOut>()("ValidationTimedOut", {
  code: "timeout",
  fields: { timeout_ms: Schema.Int },
  message: (e) => `validating the document took longer than ${Math.round(e.timeout_ms / 1000)} s and was stopped`
}) {}

/** The worker thread validating the document stopped (it ran out of memory, or a bug): it was replaced (500). */
export class ValidationWorkerFailed extends ApiError<ValidationWorkerFailed>()("ValidationWorkerFailed", {
  code: "internal",
  fields: { detail: Schema.String },
  message: (e) => `the validation worker stopped while validating the document (${e.detail})`
}) {}

/** Why a large document could not be validated: the pool was full, the work timed out, or its worker failed. */
export type ValidationUnavailable = ValidationQueueFull | ValidationTimedOut | ValidationWorkerFailed
