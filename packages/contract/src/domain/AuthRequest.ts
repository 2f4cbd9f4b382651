import * as Schema from "effect/Schema"

/** The prefix of every auth request id. */
export const authIdPrefix = "ghreq_"

/** How many random URL-safe characters follow {@link authIdPrefix}. */
export const authIdRandomLength = 24

/** `ghreq_` + 24 URL-safe characters (`A-Z a-z 0-9 - _`), made from a crypto RNG. */
export const AuthId = Schema.String.check(Schema.isPattern(/^ghreq_[A-Za-z0-9_-]{24}$/)).annotate({
  identifier: "AuthId",
  description: "ghreq_ followed by 24 URL-safe characters"
})
export type AuthId = typeof AuthId.Type

/** What a request asks for: a machine joining (`registration`) or an SSH login held by the SSH gate (`ssh_check`). */
export const AuthRequestKind = Schema.Literals(["registration", "ssh_check"]).annotate({
  identifier: "AuthRequestKind"
})
export type AuthRequestKind = typeof AuthRequestKind.Type

/**
 * The scope creating a request of `kind` needs. An `ssh_check` needs `auth_requests:create`, which the SSH gate's
 * key holds; a `registration` puts a machine in the operators' queue to be admitted, so it needs
 * `auth_requests:write`: a stolen gate key can neither decide its requests nor plant machines to be approved.
 */
export const scopeToCreate = (kind: AuthRequestKind): "auth_requests:create" | "auth_requests:write" =>
  kind === "ssh_check" ? "auth_requests:create" : "auth_requests:write"

/**
 * `pending` until an operator decides (`approved`, `rejected`), binds a registration to a user (`registered`), or
 * its time runs out (`expired`). Every state but `pending` is final.
 */
export const AuthRequestState = Schema.Literals(["pending", "approved", "rejected", "expired", "registered"]).annotate({
  identifier: "AuthRequestState"
})
export type AuthRequestState = typeof AuthRequestState.Type

/** Whether a request in this state can still change. */
export const isFinalState = (state: AuthRequestState): boolean => state !== "pending"

/** The keys and name a machine asking to join presents. */
export const Registration = Schema.Struct({
  machine_key: Schema.String,
  node_key: Schema.String,
  hostname: Schema.String
}).annotate({ identifier: "Registration" })
export type Registration = typeof Registration.Type

/** An SSH login held by the SSH gate: where from, where to, as which local user. */
export const SshCheck = Schema.Struct({
  src: Schema.String,
  dst: Schema.String,
  local_user: Schema.String
}).annotate({ identifier: "SshCheck" })
export type SshCheck = typeof SshCheck.Type

/** A user name: `[a-z0-9][a-z0-9._-]{0,62}`. */
export const UserName = Schema.String.check(Schema.isPattern(/^[a-z0-9][a-z0-9._-]{0,62}$/)).annotate({
  identifier: "UserName",
  description: "a lower-case letter or digit, then up to 62 of a-z 0-9 . _ -"
})

/** A user that nodes are registered to. Times are RFC 3339. */
export const User = Schema.Struct({
  id: Schema.Int,
  name: Schema.String,
  created_at: Schema.String,
  display_name: Schema.String,
  email: Schema.String
}).annotate({ identifier: "User" })
export type User = typeof User.Type

/** How a node was registered. */
export const RegisterMethod = Schema.Literals(["unspecified", "auth_key", "cli", "oidc"]).annotate({
  identifier: "RegisterMethod"
})
export type RegisterMethod = typeof RegisterMethod.Type

/** A machine registered to a user, with the addresses allocated to it. Times are RFC 3339. */
export const Node = Schema.Struct({
  id: Schema.Int,
  machine_key: Schema.String,
  node_key: Schema.String,
  disco_key: Schema.String,
  ip_addresses: Schema.Array(Schema.String),
  name: Schema.String,
  user: User,
  last_seen: Schema.optionalKey(Schema.String),
  expiry: Schema.optionalKey(Schema.String),
  created_at: Schema.String,
  register_method: RegisterMethod,
  given_name: Schema.String,
  online: Schema.Boolean,
  tags: Schema.Array(Schema.String)
}).annotate({ identifier: "Node" })
export type Node = typeof Node.Type

/** An interactive authentication request (SPEC §12). Times are RFC 3339. */
export const AuthRequest = Schema.Struct({
  auth_id: Schema.String,
  kind: AuthRequestKind,
  state: AuthRequestState,
  created_at: Schema.String,
  expires_at: Schema.String,
  decided_at: Schema.optionalKey(Schema.String),
  /** The principal that decided (`api-key:admin`, `user:alice`), taken from the caller, never from a request body. */
  decided_by: Schema.optionalKey(Schema.String),
  user: Schema.optionalKey(User),
  node: Schema.optionalKey(Node),
  registration: Schema.optionalKey(Registration),
  ssh_check: Schema.optionalKey(SshCheck)
}).annotate({ identifier: "AuthRequest" })
export type AuthRequest = typeof AuthRequest.Type

/** What creating a request takes: the kind and the matching details. */
export const NewAuthRequest = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("registration"), registration: Registration }),
  Schema.Struct({ kind: Schema.Literal("ssh_check"), ssh_check: SshCheck })
]).annotate({ identifier: "NewAuthRequest" })
export type NewAuthRequest = typeof NewAuthRequest.Type

/** The page size of a list when none is given, and the largest one accepted (a larger one is refused). */
export const authRequestPageSize = { default: 1000, max: 1000 } as const

/**
 * Which requests to list, and which page of them; an absent field does not filter. The list is newest first (by
 * `created_at`, ties by `auth_id`); a page is the `limit` requests after `before` in that order.
 */
export interface AuthRequestFilter {
  readonly state?: AuthRequestState | undefined
  readonly kind?: AuthRequestKind | undefined
  /** Page size: 1 to {@link authRequestPageSize}.max; {@link authRequestPageSize}.default when absent. */
  readonly limit?: number | undefined
  /**
   * A cursor: the `auth_id` of the last request of the previous page; only requests after it in the list's order
   * (older ones). Requests created meanwhile are newer, so they never shift the pages that follow.
   */
  readonly before?: string | undefined
  /** Only `ssh_check` requests from this source address. */
  readonly src?: string | undefined
  /** Only `ssh_check` requests to this destination. */
  readonly dst?: string | undefined
  /** Only `ssh_check` requests for this local user. */
  readonly local_user?: string | undefined
  /** Only requests decided (or expired) strictly after this RFC 3339 instant. */
  readonly decided_after?: string | undefined
}

/** One page of a list: its requests, and the cursor (`before`) of the next page, absent after the last. */
export interface AuthRequestPage {
  readonly auth_requests: ReadonlyArray<AuthRequest>
  readonly next_before?: string | undefined
}

/** What creating a user takes. */
export interface NewUser {
  readonly name: string
  readonly display_name?: string | undefined
  readonly email?: string | undefined
}
