import * as Schema from "effect/Schema"
import { ApiError, type DetailsCodec } from "./ApiError.js"
import { ValidationIssue } from "./ValidationIssue.js"

/** Errors carrying a list of {@link ValidationIssue}s put that list, as is, in the error body's `details`. */
export const issuesDetails: DetailsCodec = {
  toDetails: (fields) => fields.issues as ReadonlyArray<unknown>,
  fromDetails: (details) => ({ issues: details ?? [] })
}

const countProblems = (issues: ReadonlyArray<ValidationIssue>) =>
  issues.length === 1 ? issues[0]!.message : `${issues.length} problems`

/** Malformed input: a bad query, path or body (400). `issues` locate each problem. */
export class InvalidArgument extends ApiError<InvalidArgument>()("InvalidArgument", {
  code: "invalid_argument",
  fields: { message: Schema.String, issues: Schema.Array(ValidationIssue) },
  message: (e) => e.message,
  details: issuesDetails
}) {}

/** Input that parses but breaks the rules (422). */
export class ValidationFailed extends ApiError<ValidationFailed>()("ValidationFailed", {
  code: "validation_failed",
  fields: { issues: Schema.Array(ValidationIssue) },
  message: (e) => `validation failed: ${countProblems(e.issues)}`,
  details: issuesDetails
}) {}

/** YAML that is not well-formed (400); each issue has the line and column. */
export class InvalidYaml extends ApiError<InvalidYaml>()("InvalidYaml", {
  code: "invalid_yaml",
  fields: { issues: Schema.Array(ValidationIssue) },
  message: (e) => `invalid YAML: ${countProblems(e.issues)}`,
  details: issuesDetails
}) {}

/** No or invalid credentials (401). */
export class Unauthenticated extends ApiError<Unauthenticated>()("Unauthenticated", {
  code: "unauthenticated",
  fields: { message: Schema.String },
  message: (e) => e.message
}) {}

/** Authenticated but not allowed (403). */
export class PermissionDenied extends ApiError<PermissionDenied>()("PermissionDenied", {
  code: "permission_denied",
  fields: { message: Schema.String },
  message: (e) => e.message
}) {}

/** A request body over the configured limit (413). */
export class PayloadTooLarge extends ApiError<PayloadTooLarge>()("PayloadTooLarge", {
  code: "payload_too_large",
  fields: { limit_bytes: Schema.Int },
  message: (e) => `request body exceeds the limit of ${e.limit_bytes} bytes`
}) {}

/** An unexpected failure (500). The message is always generic; `request_id` finds the cause in the server log. */
export class InternalError extends ApiError<InternalError>()("InternalError", {
  code: "internal",
  fields: { request_id: Schema.String },
  message: () => "internal error"
}) {}

/** A WebSocket-only endpoint called without the upgrade (426). */
export class UpgradeRequired extends ApiError<UpgradeRequired>()("UpgradeRequired", {
  code: "upgrade_required",
  fields: { path: Schema.String },
  message: (e) => `${e.path} is a WebSocket endpoint: connect with a WebSocket client (Upgrade: websocket)`
}) {}

/** A request body in a media type or charset the endpoint does not take (415). */
export class UnsupportedMediaType extends ApiError<UnsupportedMediaType>()("UnsupportedMediaType", {
  code: "unsupported_media_type",
  fields: { message: Schema.String },
  message: (e) => e.message
}) {}

/** Too many requests or connections from one client, or in total (429, with `Retry-After`). */
export class RateLimited extends ApiError<RateLimited>()("RateLimited", {
  code: "rate_limited",
  fields: { message: Schema.String, retry_after_s: Schema.Int },
  message: (e) => e.message
}) {}
