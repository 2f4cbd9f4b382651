import { Authorization, RequestValidation } from "@gatehouse-edge/contract/api"
import { InvalidArgument, UnsupportedMediaType, type ValidationIssue } from "@gatehouse-edge/core/domain"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ErrorReporter from "effect/ErrorReporter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiError from "effect/http-api/HttpApiError"
import * as Layer from "effect/Layer"
import { BodiesInFlight } from "./BodiesInFlight.js"
import { bodyReadAhead, withCheckedBody } from "./CheckedBody.js"
import { formatRequestIssues } from "./IssueMessages.js"

const slotNames = { Params: "path", Query: "query", Headers: "headers", Payload: "body" } as const

// A query value is a string, or an array when the parameter is given more than once: only the array fails a
// one-value parameter's "Expected string".
const messageIn = (slot: string, message: string) =>
  message === "Expected no excess property"
    ? "unknown parameter"
    : slot === "query" && message === "Expected string"
      ? "expected one value, got the parameter more than once"
      : message

const toIssues = (error: HttpApiError.HttpApiSchemaError): Array<ValidationIssue> => {
  const slot = slotNames[error.kind as keyof typeof slotNames] ?? error.kind.toLowerCase()
  return formatRequestIssues(error.cause.issue).map((issue) => ({
    path: [slot, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    message: messageIn(slot, issue.message)
  }))
}

const describe = (issues: ReadonlyArray<ValidationIssue>) =>
  issues.map((i) => `${i.path.slice(1).join(".") || i.path[0]}: ${i.message}`).join("; ")

const invalid = (issues: Array<ValidationIssue>) =>
  new InvalidArgument({ message: `invalid request: ${describe(issues)}`, issues })

// An endpoint without a query schema takes no parameters at all: a typo such as `?limt=5` is a 400, not ignored.
const unexpectedParameters = (url: string): Array<ValidationIssue> => {
  const search = url.indexOf("?")
  if (search === -1) return []
  return [...new URLSearchParams(url.slice(search + 1)).keys()].map((name) => ({
    path: ["query", name],
    message: "unknown parameter"
  }))
}

// What an endpoint's body may be, as a 415 says it ("application/json", "application/yaml or text/plain"): the
// content types its payload declares in the contract. Read once per endpoint: its payload never changes.
const accepted = new WeakMap<HttpApiEndpoint.Top, string>()
const acceptedOf = (endpoint: HttpApiEndpoint.Top): string => {
  let text = accepted.get(endpoint)
  if (text === undefined) {
    const types = [...endpoint.payload.keys()]
    text = types.length === 1 ? types[0]! : `${types.slice(0, -1).join(", ")} or ${types.at(-1)}`
    accepted.set(endpoint, text)
  }
  return text
}

// The content type HttpApi decodes a body by (the header's media type, JSON when there is none), checked here so a
// 415 names what this endpoint takes: HttpApi's own is a bare text answer that says neither.
const unsupportedContentType = (request: HttpServerRequest.HttpServerRequest, endpoint: HttpApiEndpoint.Top) => {
  const declared = request.headers["content-type"]
  const mediaType = (declared ?? "application/json").toLowerCase().split(";")[0]!.trim()
  if (endpoint.payload.has(mediaType)) return undefined
  return new UnsupportedMediaType({
    message: `unsupported content type ${declared ?? "(none)"}: send ${acceptedOf(endpoint)}`
  })
}

/**
 * Every request's parameters are checked before anything else runs (and so before any WebSocket upgrade):
 * decoding failures of path, query, headers or body become `400 invalid_argument` with one issue per problem,
 * and so do query parameters on an endpoint that declares none. A body of a content type the endpoint does not declare
 * is a 415 naming the ones it does. No byte of a body is read here unless anyone may call the endpoint (sign-in,
 * sign-out): the authorization reads the others once it has admitted the caller (see `withCheckedBody`), so an
 * anonymous client cannot make the server hold a body, nor wait for one. Response encoding failures are bugs: they
 * are reported and become a generic 500.
 */
export const layerRequestValidation = Layer.effect(
  RequestValidation,
  Effect.map(Effect.service(BodiesInFlight), (bodies) =>
    RequestValidation.of((httpEffect, { endpoint }) =>
      // Chained, not Effect.gen: this runs on every request, and the generator form measured ~10 times the cost.
      Effect.service(HttpServerRequest.HttpServerRequest).pipe(
        Effect.flatMap((request) => {
          if (endpoint.query === undefined) {
            const issues = unexpectedParameters(request.url)
            if (issues.length > 0) return Effect.fail(invalid(issues))
          }
          if (endpoint.payload.size > 0 && request.method !== "GET" && request.method !== "HEAD") {
            const unsupported = unsupportedContentType(request, endpoint)
            if (unsupported !== undefined) return Effect.fail(unsupported)
            // A public endpoint's body is small (BodyLimits caps it); any other waits for its caller's credential.
            if (!endpoint.middlewares.has(Authorization) && bodyReadAhead(request, endpoint)) {
              return withCheckedBody(bodies, request, httpEffect)
            }
          }
          return httpEffect
        }),
        Effect.catch((error) => {
          if (!HttpApiError.HttpApiSchemaError.is(error)) return Effect.fail(error)
          if (error.kind === "Body" || error.kind === "ResponseHeaders") {
            return Effect.andThen(ErrorReporter.report(Cause.fail(error)), Effect.die(error))
          }
          return Effect.fail(invalid(toIssues(error)))
        })
      )
    )
  )
)
