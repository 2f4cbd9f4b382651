import { FileWriteHeaders } from "@gatehouse-edge/contract/api"
import { InvalidArgument } from "@gatehouse-edge/core/domain"
import type { WritePrecondition } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Schema from "effect/Schema"
import { formatRequestIssues } from "../middleware/IssueMessages.js"

/** A file revision as an HTTP entity tag: quoted, strong (RFC 9110 §8.8.3). */
export const etagOf = (revision: string): string => `"${revision}"`

// `*`, or the opaque tags of a header the contract already checked (`EntityTagsHeader`), with whether each is weak.
const tagsOf = (header: string): "any" | ReadonlyArray<{ readonly weak: boolean; readonly opaque: string }> =>
  header.trim() === "*"
    ? "any"
    : [...header.matchAll(/(W\/)?"([^"]*)"/g)].map((match) => ({ weak: match[1] !== undefined, opaque: match[2]! }))

/**
 * The write precondition of `If-Match` / `If-None-Match`. `If-Match` compares strongly, so a weak tag in it never
 * matches (RFC 9110 §13.1.1: a weak validator does not prove the bytes are the same); `If-None-Match` compares
 * weakly, so it counts either.
 */
export const writePrecondition = (headers: {
  readonly "if-match"?: string | undefined
  readonly "if-none-match"?: string | undefined
}): WritePrecondition => {
  const ifMatch = headers["if-match"] === undefined ? undefined : tagsOf(headers["if-match"])
  const ifNoneMatch = headers["if-none-match"] === undefined ? undefined : tagsOf(headers["if-none-match"])
  return {
    ifMatch: ifMatch === undefined || ifMatch === "any" ? ifMatch : ifMatch.flatMap((t) => (t.weak ? [] : [t.opaque])),
    ifNoneMatch: ifNoneMatch === undefined || ifNoneMatch === "any" ? ifNoneMatch : ifNoneMatch.map((t) => t.opaque)
  }
}

const decodeConditions = Schema.decodeUnknownEffect(FileWriteHeaders, { errors: "all" })

/**
 * The `If-Match` / `If-None-Match` of a file write, decoded from its request with the contract's schema (they are
 * not the endpoint's declared headers, see `FileWriteHeaders`): a malformed one is a 400 as a bad declared header
 * is (`RequestValidation`), never a write without its condition.
 */
export const writeConditionsOf = (request: HttpServerRequest.HttpServerRequest) =>
  decodeConditions(request.headers).pipe(
    Effect.mapError((error) => {
      const issues = formatRequestIssues(error.issue).map((issue) => ({
        path: ["headers", ...issue.path.map(String)],
        message: issue.message
      }))
      const described = issues.map((issue) => `${issue.path.slice(1).join(".")}: ${issue.message}`).join("; ")
      return new InvalidArgument({ message: `invalid request: ${described}`, issues })
    })
  )
