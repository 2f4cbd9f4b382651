import { CsrfCookieName, SessionCookieName } from "@gatehouse-edge/contract/api"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Redacted from "effect/Redacted"

/** The cookies of a signed-in browser: the session (its secret) and its CSRF token. */
export interface SessionCookieValues {
  readonly cookie: Redacted.Redacted<string>
  readonly csrfToken: string
}

const base = (secure: boolean) => ({ path: "/", sameSite: "lax" as const, secure })

/**
 * Sets `gatehouse_session` (HttpOnly: no script reads it) and `gatehouse_csrf` (readable, so the page's script
 * can send it back as `X-CSRF-Token`), both SameSite=Lax, Secure behind TLS, lasting the session's lifetime.
 */
export const setSessionCookies = (
  response: HttpServerResponse.HttpServerResponse,
  values: SessionCookieValues,
  options: { readonly maxAgeMs: number; readonly secure: boolean }
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.setCookiesUnsafe(response, [
    [
      SessionCookieName,
      Redacted.value(values.cookie),
      { ...base(options.secure), httpOnly: true, maxAge: Duration.millis(options.maxAgeMs) }
    ],
    [CsrfCookieName, values.csrfToken, { ...base(options.secure), maxAge: Duration.millis(options.maxAgeMs) }]
  ])

/** Removes both session cookies (sign-out, or a session that is no longer valid). */
export const clearSessionCookies = (
  response: HttpServerResponse.HttpServerResponse,
  secure: boolean
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.setCookiesUnsafe(response, [
    [SessionCookieName, "", { ...base(secure), httpOnly: true, maxAge: Duration.zero }],
    [CsrfCookieName, "", { ...base(secure), maxAge: Duration.zero }]
  ])

/**
 * Extends the cookies' lifetime on whatever response the current request gets (a renewed session: its expiry
 * moved, so the browser keeps the cookies as long as the server keeps the session).
 */
export const renewSessionCookies = (
  values: SessionCookieValues,
  options: { readonly maxAgeMs: number; readonly secure: boolean }
) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(setSessionCookies(response, values, options))
  )
