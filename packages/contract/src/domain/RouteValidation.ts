import * as Schema from "effect/Schema"
import { Route } from "./Route.js"
import { ValidationIssue } from "./ValidationIssue.js"

/** Body of a successful validation: every route, normalized. */
export const RouteValidationResult = Schema.Struct({
  valid: Schema.Literal(true),
  routes: Schema.Array(Route)
}).annotate({ identifier: "RouteValidationResult" })
export type RouteValidationResult = typeof RouteValidationResult.Type

/** A streamed result for one route of a validated document. */
export const RouteValidationFrame = Schema.Struct({
  alias: Schema.String,
  valid: Schema.Boolean,
  route: Schema.optionalKey(Route),
  errors: Schema.optionalKey(Schema.Array(ValidationIssue))
}).annotate({ identifier: "RouteValidationFrame" })
export type RouteValidationFrame = typeof RouteValidationFrame.Type

/** The frame that ends the results of one streamed document. */
export const RouteValidationDone = Schema.Struct({
  done: Schema.Literal(true),
  valid: Schema.Int,
  invalid: Schema.Int,
  errors: Schema.optionalKey(Schema.Array(ValidationIssue))
}).annotate({ identifier: "RouteValidationDone" })
export type RouteValidationDone = typeof RouteValidationDone.Type

/** One frame of the validation stream: the verdict on one route, or the end of one document's results. */
export const RouteValidationMessage = Schema.Union([RouteValidationDone, RouteValidationFrame]).annotate({
  identifier: "RouteValidationMessage"
})
export type RouteValidationMessage = typeof RouteValidationMessage.Type
