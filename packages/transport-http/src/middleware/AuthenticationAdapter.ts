import { grants, MissingScope, PermissionDenied, type Principal, Unauthenticated } from "@gatehouse-edge/core/domain"
import { Authentication, CurrentPrincipal, Sessions } from "@gatehouse-edge/core/services"
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import type { HttpApiEndpoint } from "effect/http-api"
import { requiredScopeOf, type ScopeRequirement } from "../api/Scopes.js"
import { Authorization, CsrfHeaderName } from "../api/Security.js"
import { WebSocketPolicy } from "../websocket/WebSocketPolicy.js"
import { renewSessionCookies } from "./SessionCookies.js"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

// Read once per endpoint: an endpoint's annotations never change.
const scopes = new WeakMap<HttpApiEndpoint.Top, ScopeRequirement>()
const scopeOf = (endpoint: HttpApiEndpoint.Top): ScopeRequirement => {
  let scope = scopes.get(endpoint)
  if (scope === undefined) {
    // An endpoint behind authorization that declares no scope is for admins only: a forgotten declaration fails
    // closed (and a test proves every endpoint declares one).
    scope = requiredScopeOf(endpoint.annotations) ?? "admin"
    scopes.set(endpoint, scope)
  }
  return scope
}

const checkScope = (principal: Principal, endpoint: HttpApiEndpoint.Top) => {
  const needed = scopeOf(endpoint)
  return needed === "authenticated" || grants(principal.scopes, needed)
    ? Effect.void
    : Effect.fail(new MissingScope({ scope: needed }))
}

const noCredentials = new Unauthenticated({
  message: "missing credentials: send Authorization: Bearer <API key>, or sign in (POST /api/v1/auth/login)"
})

/**
 * {@link Authorization} as an adapter over the core's `Authentication`: it hands the credential over (an API key
 * in `Authorization: Bearer`, or the `gatehouse_session` cookie), checks the caller's scopes against the scope the
 * endpoint declares, and provides the principal to the handler. Deciding who the caller is happens in core, the
 * same way for every transport; what only browsers need is checked here: a cookie-authenticated unsafe request
 * (or a GET to an endpoint that needs a write scope) must carry its session's CSRF token (`X-CSRF-Token`, the
 * `gatehouse_csrf` cookie's value), and a cookie-
 * authenticated WebSocket upgrade must name its origin (the stream checks it is this server's). An API key wins
 * over a cookie when both are sent.
 */
export const layerAuthentication = Layer.effect(
  Authorization,
  Effect.gen(function* () {
    const authentication = yield* Authentication
    const sessions = yield* Sessions

    const byKey = (key: Redacted.Redacted<string>) => authentication.authenticate({ _tag: "ApiKey", key })

    const bySession = (cookie: Redacted.Redacted<string>, endpoint: HttpApiEndpoint.Top) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const principal = yield* authentication.authenticate({ _tag: "Session", cookie })
        // A GET that changes something (`/cert/renew`) is as unsafe as a POST: a link on another site would
        // otherwise trigger it with the cookie (SameSite=Lax sends it on navigations). Upgrades are origin-checked.
        const changes = scopeOf(endpoint).endsWith(":write") && request.headers.upgrade === undefined
        if (!SAFE_METHODS.has(request.method) || changes) {
          const presented = request.headers[CsrfHeaderName]
          if (presented === undefined || !sessions.csrfMatches(cookie, presented)) {
            return yield* new PermissionDenied({
              message: "missing or wrong CSRF token: send the gatehouse_csrf cookie's value as X-CSRF-Token"
            })
          }
        }
        if (request.headers.upgrade !== undefined && request.headers.origin === undefined) {
          return yield* new PermissionDenied({
            message: "a WebSocket signed in with a session cookie must come from this server's origin (no Origin)"
          })
        }
        if (principal.session?.renewed === true) {
          const csrfToken = sessions.csrfTokenOf(cookie)
          const policy = yield* WebSocketPolicy
          if (csrfToken !== undefined) {
            yield* renewSessionCookies(
              { cookie, csrfToken },
              { maxAgeMs: sessions.ttlMs, secure: policy.secureCookies }
            )
          }
        }
        return principal
      })

    return Authorization.of({
      // Every authenticated request passes here: chained, without a span of its own (see Authentication). An
      // absent bearer token fails at once, so the session scheme (tried next) decides.
      bearer: (httpEffect, { credential, endpoint }) =>
        Redacted.value(credential) === ""
          ? Effect.fail(noCredentials)
          : Effect.flatMap(byKey(credential), (principal) =>
              Effect.andThen(
                checkScope(principal, endpoint),
                Effect.provideService(httpEffect, CurrentPrincipal, principal)
              )
            ),
      // Tried when the bearer scheme failed: its answer is the request's. A request that sent an API key gets the
      // key's error (it is checked again: only requests that fail pay twice), one without credentials a 401.
      session: (httpEffect, { credential, endpoint }) =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const authorization = request.headers.authorization
          if (authorization !== undefined) {
            const key = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1]
            if (key === undefined) return yield* noCredentials
            const principal = yield* byKey(Redacted.make(key))
            yield* checkScope(principal, endpoint)
            return principal
          }
          if (Redacted.value(credential) === "") return yield* noCredentials
          const principal = yield* bySession(credential, endpoint)
          yield* checkScope(principal, endpoint)
          return principal
        }).pipe(Effect.flatMap((principal) => Effect.provideService(httpEffect, CurrentPrincipal, principal)))
    })
  })
)
