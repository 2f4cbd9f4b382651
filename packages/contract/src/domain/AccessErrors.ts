import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/**
 * A wrong user name or password (401). The same answer for an unknown user and a wrong password, so it never
 * tells which names exist.
 */
export class InvalidCredentials extends ApiError<InvalidCredentials>()("InvalidCredentials", {
  code: "unauthenticated",
  fields: {},
  message: () => "invalid user name or password"
}) {}

/** Sign-in of a kind the configuration does not enable (503), e.g. a password login with no local users. */
export class LoginNotConfigured extends ApiError<LoginNotConfigured>()("LoginNotConfigured", {
  code: "unavailable",
  fields: { message: Schema.String },
  message: (e) => e.message
}) {}

/** An OIDC sign-in that came back wrong (400): missing or unknown state, a failed token check, ... */
export class OidcLoginFailed extends ApiError<OidcLoginFailed>()("OidcLoginFailed", {
  code: "invalid_argument",
  fields: { message: Schema.String },
  message: (e) => e.message
}) {}

/**
 * A user the OpenID provider signed in, but whom `allowed_users` / `allowed_groups` do not admit (403); `hint`
 * says what to list instead when `allowed_users` names them by a claim that admits nobody.
 */
export class OidcUserNotAllowed extends ApiError<OidcUserNotAllowed>()("OidcUserNotAllowed", {
  code: "permission_denied",
  fields: { subject: Schema.String, hint: Schema.optionalKey(Schema.String) },
  message: (e) =>
    `${e.subject} may not sign in here (not in allowed_users or allowed_groups)${e.hint === undefined ? "" : `: ${e.hint}`}`
}) {}

/** The OpenID provider could not be reached or answered with an error (502). */
export class OidcProviderFailed extends ApiError<OidcProviderFailed>()("OidcProviderFailed", {
  code: "bad_gateway",
  fields: { issuer: Schema.String, message: Schema.String },
  message: (e) => `OpenID provider ${e.issuer}: ${e.message}`
}) {}

/** An API key name that is taken by a key that is not revoked (409). */
export class ApiKeyExists extends ApiError<ApiKeyExists>()("ApiKeyExists", {
  code: "already_exists",
  fields: { name: Schema.String },
  message: (e) => `an API key named "${e.name}" exists already (revoke it first)`
}) {}

/** No active API key of that name (404). */
export class ApiKeyNotFound extends ApiError<ApiKeyNotFound>()("ApiKeyNotFound", {
  code: "not_found",
  fields: { name: Schema.String },
  message: (e) => `no active API key named "${e.name}"`
}) {}

/** No active session with that id (404). */
export class SessionNotFound extends ApiError<SessionNotFound>()("SessionNotFound", {
  code: "not_found",
  fields: { id: Schema.String },
  message: (e) => `no active session ${e.id}`
}) {}

/** Authenticated, but the credentials do not grant the scope the endpoint or RPC needs (403). */
export class MissingScope extends ApiError<MissingScope>()("MissingScope", {
  code: "permission_denied",
  fields: { scope: Schema.String },
  message: (e) => `permission denied: this needs the scope "${e.scope}", which the credentials do not grant`
}) {}
