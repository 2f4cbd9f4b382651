import type { AuthRequestFilter, AuthRequestPage } from "@gatehouse-edge/core/domain"
import { authRequestPageSize, InvalidArgument, instantMillisOf } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import type { ListAuthRequestsRequest__Output } from "../gen/gatehouse/v1/ListAuthRequestsRequest.js"
import type { ListAuthRequestsResponse } from "../gen/gatehouse/v1/ListAuthRequestsResponse.js"
import type { Timestamp } from "../gen/google/protobuf/Timestamp.js"
import { fromProtoFilter, toProtoAuthRequest, toProtoFilter } from "./ProtoMapping.js"

// A page token names the last request of the page before (the core's `before` cursor), versioned and encoded so
// clients treat it as opaque (AIP-158): its form may change, and a server keeps reading the forms it issued.
const TOKEN_VERSION = "1:"
const BASE64URL = /^[A-Za-z0-9_-]+$/

const invalid = (field: string, message: string) =>
  new InvalidArgument({ message: `${field}: ${message}`, issues: [{ path: [field], message }] })

/** The `next_page_token` that leads to the page after the request `authId`. */
export const pageTokenOf = (authId: string): string => Buffer.from(`${TOKEN_VERSION}${authId}`).toString("base64url")

/** The cursor a page token carries (checked by the core as any cursor); InvalidArgument when it is no token. */
export const cursorOfPageToken = (token: string): Effect.Effect<string, InvalidArgument> => {
  const text = BASE64URL.test(token) ? Buffer.from(token, "base64url").toString() : ""
  const cursor = text.startsWith(TOKEN_VERSION) ? text.slice(TOKEN_VERSION.length) : undefined
  // Encoding again must give the token back: base64url decoding skips what it cannot read.
  return cursor !== undefined && pageTokenOf(cursor) === token
    ? Effect.succeed(cursor)
    : Effect.fail(invalid("page_token", "malformed: pass the next_page_token of the previous response, unchanged"))
}

// google.protobuf.Timestamp's documented range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
const minSeconds = -62_135_596_800
const maxSeconds = 253_402_300_799

const instantOf = (field: string, timestamp: Timestamp | null): Effect.Effect<string | undefined, InvalidArgument> => {
  if (timestamp === null) return Effect.succeed(undefined)
  const seconds = Number(String(timestamp.seconds ?? 0))
  const nanos = timestamp.nanos ?? 0
  const valid =
    Number.isInteger(seconds) &&
    seconds >= minSeconds &&
    seconds <= maxSeconds &&
    Number.isInteger(nanos) &&
    nanos >= 0 &&
    nanos <= 999_999_999
  return valid
    ? Effect.succeed(new Date(seconds * 1000 + Math.floor(nanos / 1_000_000)).toISOString())
    : Effect.fail(invalid(field, "not a valid google.protobuf.Timestamp"))
}

// proto3 cannot tell an unset string from an empty one: empty means "any", as the proto says.
const nonEmpty = (value: string) => (value === "" ? undefined : value)

/** A `ListAuthRequestsRequest` as the core's filter: page size 0 = the default, page token = the cursor. */
export const fromProtoListRequest = (
  request: ListAuthRequestsRequest__Output
): Effect.Effect<AuthRequestFilter, InvalidArgument> =>
  Effect.gen(function* () {
    const { state, kind } = yield* fromProtoFilter(request)
    if (request.pageSize > authRequestPageSize.max) {
      return yield* invalid("page_size", `must be at most ${authRequestPageSize.max} (0 for the default)`)
    }
    const check = request.sshCheck
    return {
      state,
      kind,
      limit: request.pageSize === 0 ? undefined : request.pageSize,
      before: request.pageToken === "" ? undefined : yield* cursorOfPageToken(request.pageToken),
      src: check === null ? undefined : nonEmpty(check.src),
      dst: check === null ? undefined : nonEmpty(check.dst),
      local_user: check === null ? undefined : nonEmpty(check.localUser),
      decided_after: yield* instantOf("decided_after", request.decidedAfter)
    }
  })

/**
 * The core's refusal of a cursor (its request deleted after its retention, say), which over gRPC came as a page
 * token: the same reason, naming that field. Matched by class, then by the field its issue names.
 */
export const asPageTokenError = <E>(error: E): E | InvalidArgument => {
  const issue = error instanceof InvalidArgument ? error.issues[0] : undefined
  return issue !== undefined && issue.path[0] === "before" ? invalid("page_token", issue.message) : error
}

/** A core page as the response: the next page's token, empty after the last page. */
export const toProtoListResponse = (page: AuthRequestPage): ListAuthRequestsResponse => ({
  authRequests: page.auth_requests.map(toProtoAuthRequest),
  nextPageToken: page.next_before === undefined ? "" : pageTokenOf(page.next_before)
})

// The typed client refuses an instant that is no RFC 3339 time with a zone before sending; one that comes here all
// the same is sent as one past the Timestamp range, which the server refuses (INVALID_ARGUMENT), as it refuses it
// over HTTP, rather than read in some zone (or `1` as 2001), or encoded as NaN, which would throw inside grpc-js.
const timestampOf = (iso: string): Timestamp => {
  const ms = instantMillisOf(iso)
  if (ms === undefined) return { seconds: String(maxSeconds + 1), nanos: 0 }
  const seconds = Math.floor(ms / 1000)
  return { seconds: String(seconds), nanos: (ms - seconds * 1000) * 1_000_000 }
}

/** A domain filter as the request message (the client's side); `pageToken` wins over `filter.before`. */
export const toProtoListRequest = (filter: AuthRequestFilter, pageToken?: string) => {
  const matches = filter.src !== undefined || filter.dst !== undefined || filter.local_user !== undefined
  return {
    ...toProtoFilter(filter),
    pageSize: filter.limit ?? 0,
    pageToken: pageToken ?? (filter.before === undefined ? "" : pageTokenOf(filter.before)),
    sshCheck: matches ? { src: filter.src ?? "", dst: filter.dst ?? "", localUser: filter.local_user ?? "" } : null,
    decidedAfter: filter.decided_after === undefined ? null : timestampOf(filter.decided_after)
  }
}
