import {
  CsrfCookieName,
  CsrfHeaderName,
  CsrfRefusedMessage,
  GatehouseApi,
  SessionCookieName
} from "@gatehouse-edge/contract/api"
import {
  errorCodeOf,
  httpStatusOf,
  InvalidCredentials,
  LoginNotConfigured,
  type LoginResult,
  LogoutForm,
  PermissionDenied,
  RateLimited,
  type Role,
  type Scope,
  safeReturnPath,
  scopesOfRole,
  wireMessageOf
} from "@gatehouse-edge/core/domain"
import { type IssuedSession, Login, type LoginClient, Sessions } from "@gatehouse-edge/core/services"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpEffect from "effect/http/HttpEffect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { clearSessionCookies, setSessionCookies } from "../middleware/SessionCookies.js"
import { loginPage } from "../pages/LoginPage.js"
import { logoutPage } from "../pages/LogoutPage.js"
import { clientAddressOf } from "../websocket/ClientAddress.js"
import { originProblem } from "../websocket/OriginCheck.js"
import { WebSocketPolicy } from "../websocket/WebSocketPolicy.js"
import { completedStateCookie, heldState, startedStateCookies } from "./OidcStateCookies.js"

const isLogoutForm = Schema.is(LogoutForm)

/** What a sign-out form with a missing or wrong CSRF token is told, above the form to try again. */
const LogoutFormRefused = "You are still signed in: that sign-out form was out of date or not from this server."

const clientOf = (request: HttpServerRequest.HttpServerRequest): LoginClient => ({
  address: clientAddressOf(request),
  userAgent: request.headers["user-agent"] ?? ""
})

/** A browser navigation (`Accept: text/html, …`), as opposed to a script asking for JSON. */
const prefersHtml = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers.accept ?? "").toLowerCase().includes("text/html")

const isForm = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")

const cookieOf = (request: HttpServerRequest.HttpServerRequest) => {
  const value = request.cookies[SessionCookieName]
  return value === undefined || value === "" ? undefined : Redacted.make(value)
}

/**
 * Clears the session's cookies, if the request carried any. A request without them has nothing to clear, and
 * clearing anyway would let another site sign a browser out of this one: its form post arrives without the
 * cookies (they are `SameSite=Lax`), but the browser would still apply the answer's `Set-Cookie`.
 */
const clearSentCookies = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  secure: boolean
) =>
  request.cookies[SessionCookieName] === undefined && request.cookies[CsrfCookieName] === undefined
    ? response
    : clearSessionCookies(response, secure)

const resultOf = (issued: IssuedSession): LoginResult => ({
  message: `signed in as ${issued.session.subject}`,
  subject: issued.session.subject,
  roles: issued.session.roles,
  scopes: [...new Set(issued.session.roles.flatMap((role: Role) => scopesOfRole(role)))] as Array<Scope>,
  csrf_token: issued.csrfToken,
  expires_at: issued.session.expires_at
})

// The seconds to wait travel in the body and, for every client, in `Retry-After`.
const retryAfter = (error: RateLimited) =>
  HttpEffect.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(error.retry_after_s)))
  )

/** Handlers of the `login` group: sign-in with a password or OIDC, the callback, sign-out. */
export const LoginHandlers = HttpApiBuilder.group(GatehouseApi, "login", (handlers) =>
  Effect.gen(function* () {
    const login = yield* Login
    const sessions = yield* Sessions

    // Signing out changes something, so a browser's cookie is not enough: like every unsafe request (see the
    // Authorization middleware, which these public endpoints are not behind), it needs its session's CSRF token,
    // else a page on another site could sign the browser out (a form post, or a link to the GET). The token comes
    // as `X-CSRF-Token` (scripts) or as the field of the confirmation page's form. A cookie that holds no live
    // session of this server (not signed here, or its session expired, revoked or signed out) has nothing to end:
    // no token is asked for, its cookies are only cleared.
    const liveCsrfToken = (request: HttpServerRequest.HttpServerRequest) => {
      const cookie = cookieOf(request)
      const token = cookie === undefined ? undefined : sessions.csrfTokenOf(cookie)
      if (cookie === undefined || token === undefined) return Effect.succeed(undefined)
      return sessions.authenticate(cookie).pipe(
        Effect.as(token),
        Effect.catch(() => Effect.succeed(undefined))
      )
    }
    const tokenAccepted = (
      request: HttpServerRequest.HttpServerRequest,
      csrfToken: string | undefined,
      formToken?: string
    ) => {
      const cookie = cookieOf(request)
      if (cookie === undefined || csrfToken === undefined) return true
      return [request.headers[CsrfHeaderName], formToken].some(
        (token) => token !== undefined && sessions.csrfMatches(cookie, token)
      )
    }
    const endSession = (
      request: HttpServerRequest.HttpServerRequest,
      csrfToken: string | undefined,
      formToken?: string
    ) =>
      Effect.suspend(() =>
        tokenAccepted(request, csrfToken, formToken)
          ? login.logout(cookieOf(request))
          : Effect.fail(new PermissionDenied({ message: CsrfRefusedMessage }))
      )
    // Where a browser goes once signed out: the provider's end-session page, else the sign-in page (302 for the
    // GET; 303 for a form post, which the browser then follows with a GET), without the cookies it sent.
    const signedOut =
      (request: HttpServerRequest.HttpServerRequest, status: 302 | 303) => (ended: { readonly redirect?: string }) =>
        Effect.gen(function* () {
          const policy = yield* WebSocketPolicy
          return clearSentCookies(
            request,
            HttpServerResponse.redirect(ended.redirect ?? "/login?signed_out=1", { status }),
            policy.secureCookies
          )
        })
    const cookieOptions = (maxAgeMs: number) =>
      Effect.gen(function* () {
        return { maxAgeMs, secure: (yield* WebSocketPolicy).secureCookies }
      })
    const withSession = (response: HttpServerResponse.HttpServerResponse, issued: IssuedSession) =>
      Effect.map(cookieOptions(Date.parse(issued.session.expires_at) - Date.parse(issued.session.created_at)), (o) =>
        setSessionCookies(response, { cookie: issued.cookie, csrfToken: issued.csrfToken }, o)
      )

    // A failed form post shows the page again with the error, with the status a script would have got.
    const formFailure = (error: unknown, username: string, returnTo: string) => {
      const shown =
        error instanceof RateLimited
          ? { message: error.message, status: 429 }
          : error instanceof InvalidCredentials
            ? { message: error.message, status: 401 }
            : error instanceof PermissionDenied
              ? { message: error.message, status: 403 }
              : { message: error instanceof LoginNotConfigured ? error.message : "sign-in failed", status: 503 }
      const page = loginPage({ ...login.methods, returnTo, username, error: shown })
      return error instanceof RateLimited
        ? HttpServerResponse.setHeader(page, "retry-after", String(error.retry_after_s))
        : page
    }

    return handlers
      .handle("start", ({ query, request }) => {
        const returnTo = safeReturnPath(query.return_to)
        const started = Effect.gen(function* () {
          if (login.methods.oidc && (query.method !== "password" || !login.methods.password)) {
            if (query.method === undefined && login.methods.password) {
              // Both are configured: the page offers both.
              return HttpServerResponse.redirect(`/login?return_to=${encodeURIComponent(returnTo)}`, { status: 302 })
            }
            const started = yield* login.beginOidc(returnTo, clientOf(request))
            const policy = yield* WebSocketPolicy
            return HttpServerResponse.setCookiesUnsafe(
              HttpServerResponse.redirect(started.url, { status: 302 }),
              startedStateCookies(request.cookies, started.state, yield* Clock.currentTimeMillis, policy.secureCookies)
            )
          }
          if (login.methods.password) {
            return HttpServerResponse.redirect(`/login?return_to=${encodeURIComponent(returnTo)}`, { status: 302 })
          }
          return yield* new LoginNotConfigured({ message: "no sign-in is configured (auth.users or auth.oidc)" })
        })
        if (!prefersHtml(request)) return started
        // A browser that cannot be sent on to the provider (it is down, say) sees the sign-in page with the reason
        // and the status a script gets, as after a refused callback, rather than a JSON document.
        return Effect.catch(started, (error) =>
          Effect.succeed(
            loginPage({
              ...login.methods,
              returnTo,
              error: { message: wireMessageOf(error), status: httpStatusOf(errorCodeOf(error)) }
            })
          )
        )
      })
      .handle("login", ({ payload, request }) =>
        Effect.gen(function* () {
          const form = isForm(request)
          const returnTo = safeReturnPath(payload.return_to)
          const problem = originProblem(request, yield* WebSocketPolicy)
          const attempt = Effect.gen(function* () {
            // A page on another origin must not sign a browser in to an account of its choosing (login CSRF).
            if (problem !== undefined) return yield* new PermissionDenied({ message: problem })
            return yield* login.password(
              { username: payload.username, password: Redacted.make(payload.password) },
              clientOf(request)
            )
          })
          if (form) {
            return yield* attempt.pipe(
              Effect.flatMap((issued) => withSession(HttpServerResponse.redirect(returnTo, { status: 303 }), issued)),
              Effect.catch((error) => Effect.succeed(formFailure(error, payload.username, returnTo)))
            )
          }
          const issued = yield* attempt.pipe(
            Effect.tapError((error) => (error instanceof RateLimited ? retryAfter(error) : Effect.void))
          )
          return yield* withSession(HttpServerResponse.jsonUnsafe(resultOf(issued)), issued)
        })
      )
      .handle("callback", ({ request }) =>
        Effect.gen(function* () {
          const parameters = new URL(request.url, "http://callback.invalid").searchParams
          const policy = yield* WebSocketPolicy
          const state = parameters.get("state")
          // This sign-in's state cookie has served its purpose once it succeeded; other pending ones stay.
          const clearState = (response: HttpServerResponse.HttpServerResponse) =>
            HttpServerResponse.setCookiesUnsafe(response, [completedStateCookie(state ?? "", policy.secureCookies)])
          const signedIn = login.completeOidc(parameters, heldState(request.cookies, state), clientOf(request)).pipe(
            Effect.tapError((error) => (error instanceof RateLimited ? retryAfter(error) : Effect.void)),
            Effect.flatMap((done) =>
              withSession(clearState(HttpServerResponse.redirect(done.returnTo, { status: 302 })), done.issued)
            )
          )
          if (!prefersHtml(request)) return yield* signedIn
          // A browser sent back by the provider sees the sign-in page saying what went wrong, with the status a
          // script gets (and the same message as its JSON error body), rather than a JSON document.
          return yield* Effect.catch(signedIn, (error) =>
            Effect.succeed(
              loginPage({
                ...login.methods,
                returnTo: "/",
                error: { message: wireMessageOf(error), status: httpStatusOf(errorCodeOf(error)) }
              })
            )
          )
        })
      )
      .handle("logout", ({ request }) =>
        Effect.gen(function* () {
          // A browser that followed a plain link (or submitted the overview's form without JavaScript) has no
          // header to send: it is asked to confirm, on a page whose form carries the token. Scripts get the 403.
          const csrfToken = yield* liveCsrfToken(request)
          if (csrfToken !== undefined && prefersHtml(request) && !tokenAccepted(request, csrfToken)) {
            return logoutPage({ csrfToken, endSessionOrigin: yield* login.endSessionOrigin })
          }
          return yield* Effect.flatMap(endSession(request, csrfToken), signedOut(request, 302))
        })
      )
      .handle("logoutJson", ({ payload, request }) =>
        Effect.gen(function* () {
          const csrfToken = yield* liveCsrfToken(request)
          if (isForm(request)) {
            // The confirmation page's form: answered like the GET, or with the page again (403, with the token of
            // the session the browser holds now: a page left open from an earlier session sent an old one).
            const formToken = isLogoutForm(payload) ? payload.csrf_token : undefined
            if (csrfToken !== undefined && !tokenAccepted(request, csrfToken, formToken)) {
              const endSessionOrigin = yield* login.endSessionOrigin
              return logoutPage({ csrfToken, endSessionOrigin, error: LogoutFormRefused })
            }
            return yield* Effect.flatMap(endSession(request, csrfToken, formToken), signedOut(request, 303))
          }
          const ended = yield* endSession(request, csrfToken)
          const policy = yield* WebSocketPolicy
          return clearSentCookies(
            request,
            HttpServerResponse.jsonUnsafe({
              message: "signed out",
              ...(ended.redirect === undefined ? {} : { redirect: ended.redirect })
            }),
            policy.secureCookies
          )
        })
      )
  })
)
