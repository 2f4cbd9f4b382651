import * as Schema from "effect/Schema"
import { ErrorCode } from "./ErrorCode.js"

/**
 * The body of every non-2xx JSON response:
 * `{"error": {"code": "not_found", "message": "...", "details"?: [...], "request_id"?: "..."}}`.
 *
 * `details` holds structured information: the list of validation issues for `validation_failed` and YAML
 * errors, otherwise one object `{"reason": "<ErrorTag>", ...fields}` that names the typed error.
 */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: ErrorCode,
    message: Schema.String,
    details: Schema.optionalKey(Schema.Array(Schema.Unknown)),
    request_id: Schema.optionalKey(Schema.String)
  })
}).annotate({ identifier: "ErrorBody", description: "The shared error body of every non-2xx JSON response" })
export type ErrorBody = typeof ErrorBody.Type

/** The shared body of actions without a resource: `{"message": "<what happened>", ...extra typed fields}`. */
export const SuccessBody = Schema.Struct({ message: Schema.String }).annotate({
  identifier: "SuccessBody",
  description: "The shared body of actions without a resource"
})
export type SuccessBody = typeof SuccessBody.Type

/** A success body with extra typed fields next to `message`. */
export const successBodyWith = <const Fields extends Schema.Struct.Fields>(identifier: string, fields: Fields) =>
  Schema.Struct({ message: Schema.String, ...fields }).annotate({ identifier })
