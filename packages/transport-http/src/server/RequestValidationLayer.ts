import { InvalidArgument, type ValidationIssue } from "@gatehouse/core/domain"
import { Cause, Effect, ErrorReporter, SchemaIssue } from "effect"
import { type HttpApiError, HttpApiMiddleware } from "effect/http-api"
import { RequestValidation } from "../api/RequestValidation.js"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const slotNames = { Params: "path", Query: "query", Headers: "headers", Payload: "body" } as const

const toIssues = (error: HttpApiError.HttpApiSchemaError): Array<ValidationIssue> => {
  const slot = slotNames[error.kind as keyof typeof slotNames] ?? error.kind.toLowerCase()
  return formatIssues(error.cause.issue).issues.map((issue) => ({
    path: [slot, ...(issue.path ?? []).map((p) => (typeof p === "object" ? String(p.key) : (p as string | number)))],
    message: issue.message === "Expected no excess property" ? "unknown parameter" : issue.message
  }))
}

const describe = (issues: ReadonlyArray<ValidationIssue>) =>
  issues.map((i) => `${i.path.slice(1).join(".") || i.path[0]}: ${i.message}`).join("; ")

/**
 * Request decoding failures become `400 invalid_argument` with one issue per problem; response encoding
 * failures are bugs: they are reported and become a generic 500.
 */
export const layerRequestValidation = HttpApiMiddleware.layerSchemaErrorTransform(RequestValidation, (error) => {
  if (error.kind === "Body" || error.kind === "ResponseHeaders") {
    return Effect.andThen(ErrorReporter.report(Cause.fail(error)), Effect.die(error))
  }
  const issues = toIssues(error)
  return Effect.fail(new InvalidArgument({ message: `invalid request: ${describe(issues)}`, issues }))
})
