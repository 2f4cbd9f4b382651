import * as Schema from "effect/Schema"
import { Scope } from "./Scope.js"

/**
 * How a caller proved who it is: an API key (`Authorization: Bearer gh_...`), a browser session of a local user,
 * a session created through OIDC, or a connection on the local unix socket (trusted by its file mode).
 */
export const AuthMethod = Schema.Literals(["api_key", "session", "oidc", "unix_socket"]).annotate({
  identifier: "AuthMethod"
})
export type AuthMethod = typeof AuthMethod.Type

/** The browser session a principal came with: its public id (for listing and revoking) and when it expires. */
export const PrincipalSession = Schema.Struct({
  id: Schema.String,
  expires_at: Schema.String,
  /** Whether this request extended the session (sliding expiry), so the cookie's lifetime is extended too. */
  renewed: Schema.Boolean
}).annotate({ identifier: "PrincipalSession" })
export type PrincipalSession = typeof PrincipalSession.Type

/**
 * The API key a principal came with: its public prefix (`gh_<prefix>_…`, as listed) and when it expires (null:
 * never), so open streams can be ended when the key is revoked or expires.
 */
export const PrincipalApiKey = Schema.Struct({
  prefix: Schema.String,
  expires_at: Schema.NullOr(Schema.String)
}).annotate({ identifier: "PrincipalApiKey" })
export type PrincipalApiKey = typeof PrincipalApiKey.Type

/**
 * Who made a request, as established by authentication: the method, a stable subject for logs and audit
 * (`api-key:admin`, `user:alice`, `oidc:alice`), the roles it holds, and the scopes those grant (what every
 * endpoint and RPC checks). A session principal also says which session it is, an API key principal which key.
 */
export const Principal = Schema.Struct({
  method: AuthMethod,
  subject: Schema.String,
  roles: Schema.Array(Schema.String),
  scopes: Schema.Array(Scope),
  session: Schema.optionalKey(PrincipalSession),
  api_key: Schema.optionalKey(PrincipalApiKey)
}).annotate({ identifier: "Principal" })
export type Principal = typeof Principal.Type
