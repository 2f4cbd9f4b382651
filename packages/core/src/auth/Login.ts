import type {
  InvalidCredentials,
  LoginNotConfigured,
  OidcLoginFailed,
  OidcProviderFailed,
  OidcUserNotAllowed,
  RateLimited
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import type { IssuedSession } from "./Sessions.js"

/** Where a sign-in comes from: shown in session listings and events, and the key of the per-address limit. */
export interface LoginClient {
  readonly address: string
  readonly userAgent: string
}

/** An OIDC login on its way to the provider: the browser goes to `url`; `state` is bound to the browser (cookie). */
export interface OidcRedirect {
  readonly url: string
  readonly state: string
}

/**
 * Signing in and out: local users (name + argon2id/bcrypt hash from the config) and OpenID Connect. Each success
 * is a new session ({@link IssuedSession}); each attempt is an event (`auth/login`, `auth/login_failed`).
 */
export class Login extends Context.Service<
  Login,
  {
    /** Which ways to sign in the configuration enables. */
    readonly methods: { readonly password: boolean; readonly oidc: boolean }
    /**
     * A local user's sign-in. An unknown user and a wrong password get the same error after the same work (a
     * hash is verified either way); too many attempts from the address or for the user are `RateLimited`.
     */
    readonly password: (
      credentials: { readonly username: string; readonly password: Redacted.Redacted<string> },
      client: LoginClient
    ) => Effect.Effect<IssuedSession, InvalidCredentials | RateLimited | LoginNotConfigured>
    /** Starts an OIDC login that comes back to `returnTo` (a path on this server; anything else becomes `/`). */
    readonly beginOidc: (
      returnTo: string | undefined,
      client: LoginClient
    ) => Effect.Effect<OidcRedirect, LoginNotConfigured | OidcProviderFailed | RateLimited>
    /**
     * Finishes an OIDC login from the parameters of the provider's redirect to the callback (`code`, `state`, ...):
     * `stateCookie` is the state the browser was given by `beginOidc` (a callback in another browser, or replayed,
     * is refused).
     */
    readonly completeOidc: (
      callbackParameters: URLSearchParams,
      stateCookie: string | undefined,
      client: LoginClient
    ) => Effect.Effect<
      { readonly issued: IssuedSession; readonly returnTo: string },
      LoginNotConfigured | OidcLoginFailed | OidcUserNotAllowed | OidcProviderFailed | RateLimited
    >
    /** Ends the session in `cookie` (if any); for an OIDC session, where to end the provider's session too. */
    readonly logout: (cookie: Redacted.Redacted<string> | undefined) => Effect.Effect<{ readonly redirect?: string }>
    /**
     * The origin of the OpenID provider's end-session page, where `logout` sends the browser of an OIDC session
     * next: none without OIDC, or when the provider has no such page or cannot be reached. A page whose form signs
     * out must let the form lead there (its CSP `form-action`: browsers check the redirect after a form post too).
     */
    readonly endSessionOrigin: Effect.Effect<string | undefined>
  }
>()("@gatehouse-edge/core/Login") {}
