import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  AddressPoolExhausted,
  AuthRequest,
  AuthRequestAlreadyDecided,
  AuthRequestExpired,
  AuthRequestKind,
  AuthRequestNotFound,
  AuthRequestState,
  AuthRequestWrongKind,
  InvalidArgument,
  MissingScope,
  NewAuthRequest,
  Node,
  RateLimited,
  toWireError,
  User,
  UserAlreadyExists,
  UserNotFound
} from "../domain/index.js"
import { Limit } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

// The auth id is checked by the service (prefix, length, charset), so HTTP and gRPC refuse the same input with the
// same message; here it is only text.
const AuthIdBody = Schema.Struct({ auth_id: Schema.String })

const described = (description: string) => Schema.optionalKey(Schema.String.annotate({ description }))

/** Query of `GET /auth/requests`: the filters and the page (`limit`, `before`). */
const ListQuery = {
  state: Schema.optionalKey(AuthRequestState),
  kind: Schema.optionalKey(AuthRequestKind),
  limit: Schema.optionalKey(Limit),
  before: described(
    "Cursor: the auth_id of the last request of the previous page; only requests after it (older) are listed"
  ),
  src: described("Only ssh_check requests from this source address"),
  dst: described("Only ssh_check requests to this destination"),
  local_user: described("Only ssh_check requests for this local user"),
  decided_after: described(
    "Only requests decided (or expired) strictly after this RFC 3339 time, such as 2026-01-02T03:04:05Z"
  )
}

const verdictErrors = [
  toWireError(InvalidArgument),
  toWireError(AuthRequestNotFound),
  toWireError(AuthRequestExpired),
  toWireError(AuthRequestAlreadyDecided),
  toWireError(AuthRequestWrongKind)
]

/** Interactive auth requests (SPEC §12): the HTTP binding of `gatehouse.v1.AuthService`. */
export class AuthRequestsApi extends HttpApiGroup.make("authRequests")
  .add(
    HttpApiEndpoint.post("register", "/auth/register", {
      payload: Schema.Struct({ user: Schema.String, auth_id: Schema.String }),
      success: Node,
      error: [...verdictErrors, toWireError(UserNotFound), toWireError(AddressPoolExhausted)]
    })
      .annotateMerge(requires("auth_requests:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Register a machine",
          description:
            "Binds a pending registration to `user`: creates the node (or re-authorises the node with the same " +
            "machine key), allocates its addresses, and wakes the waiting machine. 409 when the request is decided, " +
            "expired or not a registration."
        })
      ),
    HttpApiEndpoint.post("approve", "/auth/approve", {
      payload: AuthIdBody,
      success: AuthRequest,
      error: verdictErrors
    })
      .annotateMerge(requires("auth_requests:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Approve a request",
          description: "pending → approved. Approving again is fine; 409 once rejected or expired."
        })
      ),
    HttpApiEndpoint.post("reject", "/auth/reject", {
      payload: AuthIdBody,
      success: AuthRequest,
      error: verdictErrors
    })
      .annotateMerge(requires("auth_requests:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Reject a request",
          description: "pending → rejected. Rejecting again is fine; 409 once approved, registered or expired."
        })
      ),
    HttpApiEndpoint.post("create", "/auth/requests", {
      payload: NewAuthRequest,
      success: AuthRequest.annotate({ httpApiStatus: 201 }),
      error: [toWireError(InvalidArgument), toWireError(MissingScope), toWireError(RateLimited)]
    })
      // Not write: the SSH gate's key creates and watches requests, and must never decide them (approve, ...). A
      // `registration` needs write (`scopeToCreate`), checked by the handler: only the body says the kind.
      .annotateMerge(requires("auth_requests:create"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Create a request",
          description:
            "A pending `registration` (machine_key, node_key, hostname) or `ssh_check` (src, dst, local_user) " +
            "request; past the pending cap the oldest pending request expires. An `ssh_check` needs " +
            "`auth_requests:create`, a `registration` `auth_requests:write` (403 `MissingScope` otherwise). A key " +
            "that may create but not decide creates at most 20 a second, 100 at once (429 `RateLimited`)."
        })
      ),
    HttpApiEndpoint.get("list", "/auth/requests", {
      query: ListQuery,
      success: Schema.Array(AuthRequest),
      error: toWireError(InvalidArgument)
    })
      .annotateMerge(requires("auth_requests:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "List requests",
          description:
            "Newest first (by `created_at`, ties by `auth_id`): pending requests and the decided history (kept " +
            "for `auth_requests.retention`), a page at a time: at most `limit` (default and maximum 1000). For " +
            "the next page pass `before` = the `auth_id` of the last request received; a page shorter than " +
            "`limit` is the last. Requests created meanwhile are newer, so they never shift the pages that " +
            "follow. The filters (`state`, `kind`, `src`, `dst`, `local_user`, `decided_after`) combine with AND. " +
            "400 for a `before` that is malformed or names no stored request, and for an empty or unprintable " +
            "filter value."
        })
      ),
    HttpApiEndpoint.get("get", "/auth/requests/:auth_id", {
      params: { auth_id: Schema.String },
      success: AuthRequest,
      error: [toWireError(InvalidArgument), toWireError(AuthRequestNotFound)]
    })
      .annotateMerge(requires("auth_requests:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Get a request",
          description:
            "WebSocket on the same path: the current state, then each change; closes normally (1000) after a final state."
        })
      ),
    HttpApiEndpoint.get("listUsers", "/users", { success: Schema.Array(User) })
      .annotateMerge(requires("users:read"))
      .annotateMerge(OpenApi.annotations({ summary: "List users" })),
    HttpApiEndpoint.post("createUser", "/users", {
      payload: Schema.Struct({
        name: Schema.String,
        display_name: Schema.optionalKey(Schema.String),
        email: Schema.optionalKey(Schema.String)
      }),
      success: User.annotate({ httpApiStatus: 201 }),
      error: [toWireError(InvalidArgument), toWireError(UserAlreadyExists)]
    })
      .annotateMerge(requires("users:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Create a user",
          description: "`name`: `[a-z0-9][a-z0-9._-]{0,62}`; 409 when it exists."
        })
      ),
    HttpApiEndpoint.get("listNodes", "/nodes", {
      query: { user: Schema.optionalKey(Schema.String) },
      success: Schema.Array(Node),
      error: [toWireError(InvalidArgument), toWireError(UserNotFound)]
    })
      .annotateMerge(requires("users:read"))
      .annotateMerge(OpenApi.annotations({ summary: "List nodes", description: "Of one user with `user`." }))
  )
  .middleware(Authorization) {}
