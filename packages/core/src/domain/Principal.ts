import { Schema } from "effect"

/**
 * How a caller proved who it is: an API key (`Authorization: Bearer gh_...`), a browser session of a local user,
 * a session created through OIDC, or a connection on the local unix socket (trusted by its file mode).
 */
export const AuthMethod = Schema.Literals(["api_key", "session", "oidc", "unix_socket"]).annotate({
  identifier: "AuthMethod"
})
export type AuthMethod = typeof AuthMethod.Type

/**
 * Who made a request, as established by authentication: the method, a stable subject for logs and audit
 * (`api-key:admin`, `user:alice`), and the roles it holds (`admin` for full access).
 */
export const Principal = Schema.Struct({
  method: AuthMethod,
  subject: Schema.String,
  roles: Schema.Array(Schema.String)
}).annotate({ identifier: "Principal" })
export type Principal = typeof Principal.Type
