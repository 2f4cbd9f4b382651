import * as Schema from "effect/Schema"
import { defineEvent } from "./EventKind.js"
import { AuthMethod } from "./Principal.js"

const SignIn = Schema.Struct({ subject: Schema.String, method: AuthMethod, address: Schema.String })

/** `auth/login`: someone signed in (a new session). */
export const LoginEvent = defineEvent("auth", "login", {
  level: "info",
  identifier: "LoginEvent",
  description: "a user signed in",
  data: SignIn
})

/** `auth/login_failed`: a sign-in was refused (bad password, a user not allowed, a failed OIDC check). */
export const LoginFailedEvent = defineEvent("auth", "login_failed", {
  level: "warn",
  identifier: "LoginFailedEvent",
  description: "a sign-in was refused",
  data: Schema.Struct({
    /**
     * The name that was tried, bounded (an unauthenticated client chose it); for a password sign-in, empty when it
     * is no user's name (it may be a password typed into the wrong field).
     */
    username: Schema.String,
    method: AuthMethod,
    address: Schema.String,
    reason: Schema.String
  })
})

/**
 * `auth/logout`: a session ended: signed out, revoked by an admin, or ended by the configuration the server runs
 * with (`by: "config"`, the user no longer admitted or their password changed; `reason` says which).
 */
export const LogoutEvent = defineEvent("auth", "logout", {
  level: "info",
  identifier: "LogoutEvent",
  description: "a session ended",
  data: Schema.Struct({
    subject: Schema.String,
    session_id: Schema.String,
    by: Schema.String,
    reason: Schema.optionalKey(Schema.String)
  })
})

/** `api_key/created`. */
export const ApiKeyCreatedEvent = defineEvent("api_key", "created", {
  level: "info",
  identifier: "ApiKeyCreatedEvent",
  description: "an API key was created",
  data: Schema.Struct({
    name: Schema.String,
    prefix: Schema.String,
    scopes: Schema.Array(Schema.String),
    by: Schema.String
  })
})

/** `api_key/revoked`. */
export const ApiKeyRevokedEvent = defineEvent("api_key", "revoked", {
  level: "info",
  identifier: "ApiKeyRevokedEvent",
  description: "an API key was revoked",
  data: Schema.Struct({ name: Schema.String, by: Schema.String })
})
