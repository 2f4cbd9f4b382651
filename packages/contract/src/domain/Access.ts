import * as Schema from "effect/Schema"
import { AuthMethod } from "./Principal.js"
import { Role, Scope } from "./Scope.js"

/** A browser session, as listed to an admin: never its token. */
export const SessionInfo = Schema.Struct({
  id: Schema.String,
  subject: Schema.String,
  method: AuthMethod,
  roles: Schema.Array(Role),
  address: Schema.String,
  user_agent: Schema.String,
  created_at: Schema.String,
  expires_at: Schema.String,
  renewed_at: Schema.String
}).annotate({ identifier: "SessionInfo", description: "A signed-in browser session (times RFC 3339)" })
export type SessionInfo = typeof SessionInfo.Type

/** An API key, as listed: its public prefix and what it may do, never the key or its hash. */
export const ApiKeyInfo = Schema.Struct({
  name: Schema.String,
  prefix: Schema.String,
  scopes: Schema.Array(Scope),
  created_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String),
  last_used_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
}).annotate({
  identifier: "ApiKeyInfo",
  description: "An API key without its secret; `last_used_at` is recorded at most once a minute per key"
})
export type ApiKeyInfo = typeof ApiKeyInfo.Type

/** A key name: what `gatehouse apikey revoke NAME` takes. */
export const ApiKeyName = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9._-]{0,62}$/, {
    message: "a key name is 1–63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit"
  })
).annotate({ identifier: "ApiKeyName" })

/** What `POST /apikeys` takes. */
export const NewApiKey = Schema.Struct({
  name: ApiKeyName,
  scopes: Schema.Array(Scope).check(Schema.isMinLength(1)),
  /** Seconds until the key stops working; none: it never expires. */
  expires_in_s: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 60, maximum: 10 * 366 * 86_400 })))
}).annotate({ identifier: "NewApiKey" })
export type NewApiKey = typeof NewApiKey.Type

/** A new API key: the key itself is shown here once and never again. */
export const CreatedApiKey = Schema.Struct({ key: Schema.String, api_key: ApiKeyInfo }).annotate({
  identifier: "CreatedApiKey"
})
export type CreatedApiKey = typeof CreatedApiKey.Type

// Long enough for any passphrase; short enough that a hash is never computed over megabytes.
const MAX_PASSWORD_LENGTH = 1024

/** What `POST /auth/login` takes, as JSON or as a form. `return_to` (forms) is where to go afterwards. */
export const LoginRequest = Schema.Struct({
  username: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256)),
  password: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(MAX_PASSWORD_LENGTH)),
  return_to: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(2048)))
}).annotate({ identifier: "LoginRequest" })
export type LoginRequest = typeof LoginRequest.Type

/**
 * A successful sign-in. The session itself is in the `gatehouse_session` cookie (HttpOnly); `csrf_token` is also
 * in the `gatehouse_csrf` cookie, and must be sent back as `X-CSRF-Token` with every unsafe request.
 */
export const LoginResult = Schema.Struct({
  message: Schema.String,
  subject: Schema.String,
  roles: Schema.Array(Role),
  scopes: Schema.Array(Scope),
  csrf_token: Schema.String,
  expires_at: Schema.String
}).annotate({ identifier: "LoginResult" })
export type LoginResult = typeof LoginResult.Type

/**
 * What the sign-out confirmation page posts to `POST /auth/logout` (a form): the session's CSRF token, in place of
 * the `X-CSRF-Token` header a script sends.
 */
export const LogoutForm = Schema.Struct({
  csrf_token: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(256)))
}).annotate({ identifier: "LogoutForm" })
export type LogoutForm = typeof LogoutForm.Type

/** What `POST /auth/logout` answers: where a browser goes next to end the provider's session too, if anywhere. */
export const LogoutResult = Schema.Struct({
  message: Schema.String,
  redirect: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "LogoutResult" })
export type LogoutResult = typeof LogoutResult.Type
