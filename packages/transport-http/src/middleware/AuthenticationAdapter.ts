import {
  Authorization,
  CsrfHeaderName,
  CsrfRefusedMessage,
  requiredScopeOf,
  type ScopeRequirement
} from "@gatehouse-edge/contract/api"
import {
  grants,
  isChangeScope,
  MissingScope,
  PermissionDenied,
  type Principal,
  Unauthenticated
} from "@gatehouse-edge/core/domain"
import { Authentication, CurrentPrincipal, Sessions } from "@gatehouse-edge/core/services"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { StreamCredential } from "../websocket/StreamCredential.js"
import { isWebSocketUpgrade } from "../websocket/StreamEndpoint.js"
import { WebSocketPolicy } from "../websocket/WebSocketPolicy.js"
import { BodiesInFlight } from "./BodiesInFlight.js"
import { bodyReadAhead, withCheckedBody } from "./CheckedBody.js"
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

const csrfRefused = new PermissionDenied({ message: CsrfRefusedMessage })

const originRequired = new PermissionDenied({
  message: "a WebSocket signed in with a session cookie must come from this server's origin (no Origin)"
})

const noCredentials = new Unauthenticated({
  message: "missing credentials: send Authorization: Bearer <API key>, or sign in (POST /api/v1/auth/login)"
})

/**
 * {@link Authorization} as an adapter over the core's `Authentication`: it hands the credential over (an API key
 * in `Authorization: Bearer`, or the `gatehouse_session` cookie), checks the caller's scopes against the scope the
 * endpoint declares, and provides the principal to the handler. Deciding who the caller is happens in core, the
 * same way for every transport; what only browsers need is checked here: a cookie-authenticated unsafe request
 * (or a GET to an endpoint that needs a write or create scope) must carry its session's CSRF token
 * (`X-CSRF-Token`, the `gatehouse_csrf` cookie's value), and a cookie-authenticated WebSocket upgrade must name
 * its origin (the stream checks it is this server's). An API key wins over a cookie when both are sent.
 */
export const layerAuthentication = Layer.effect(
  Authorization,
  Effect.gen(function* () {
    const authentication = yield* Authentication
    const sessions = yield* Sessions
    const bodies = yield* BodiesInFlight

    const byKey = (key: Redacted.Redacted<string>) => authentication.authenticate({ _tag: "ApiKey", key })

    // What only a browser's request must show besides its cookie: the CSRF token of an unsafe request, and the
    // origin of a WebSocket upgrade. A GET that changes something (`/cert/renew`) is as unsafe as a POST: a link on
    // another site would otherwise trigger it with the cookie (SameSite=Lax sends it on navigations).
    const browserProblem = (
      request: HttpServerRequest.HttpServerRequest,
      cookie: Redacted.Redacted<string>,
      endpoint: HttpApiEndpoint.Top
    ): PermissionDenied | undefined => {
      const upgrade = isWebSocketUpgrade(request)
      const needed = scopeOf(endpoint)
      const changes = needed !== "authenticated" && isChangeScope(needed) && !upgrade
      if (!SAFE_METHODS.has(request.method) || changes) {
        const presented = request.headers[CsrfHeaderName]
        if (presented === undefined || !sessions.csrfMatches(cookie, presented)) return csrfRefused
      }
      return upgrade && request.headers.origin === undefined ? originRequired : undefined
    }

    // A renewed session's cookies are sent again with the response, so the browser keeps them as long.
    const renewed = (principal: Principal, cookie: Redacted.Redacted<string>) => {
      const csrfToken = principal.session?.renewed === true ? sessions.csrfTokenOf(cookie) : undefined
      if (csrfToken === undefined) return Effect.void
      return Effect.withFiber((fiber) =>
        renewSessionCookies(
          { cookie, csrfToken },
          { maxAgeMs: sessions.ttlMs, secure: fiber.getRef(WebSocketPolicy).secureCookies }
        )
      )
    }

    const bySession = (
      request: HttpServerRequest.HttpServerRequest,
      cookie: Redacted.Redacted<string>,
      endpoint: HttpApiEndpoint.Top
    ) =>
      Effect.flatMap(authentication.authenticate({ _tag: "Session", cookie }), (principal) => {
        const problem = browserProblem(request, cookie, endpoint)
        return problem !== undefined ? Effect.fail(problem) : Effect.as(renewed(principal, cookie), principal)
      })

    // A body's refusals (400 not UTF-8, 415 another charset) are RequestValidation's errors, which every endpoint
    // declares: HttpApi renders them as it renders that middleware's own, so they pass here as the handler's do.
    // Under the bearer scheme such a failure has the session scheme try again: it checks the key and the same
    // (cached) body again, and fails the same way.
    const checkedBody = <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) => withCheckedBody(bodies, request, httpEffect) as Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

    // The handler runs as the principal. An upgrade's stream outlives this check, so it also gets what ends it
    // when the credential does (revoked, expired, signed out); a plain request is over before that matters.
    // The body is read only now, the caller admitted and its scope checked (RequestValidation leaves it unread):
    // an anonymous client gets its 401 at once, without making the server wait for or hold a body.
    const serve = <E, R>(
      httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      principal: Principal,
      request: HttpServerRequest.HttpServerRequest,
      endpoint: HttpApiEndpoint.Top
    ) => {
      const withBody = bodyReadAhead(request, endpoint) ? checkedBody(request, httpEffect) : httpEffect
      const served = Effect.provideService(withBody, CurrentPrincipal, principal)
      return !isWebSocketUpgrade(request)
        ? served
        : Effect.provideService(served, StreamCredential, authentication.validUntilRevoked(principal))
    }

    return Authorization.of({
      // Every authenticated request passes here: chained, without a span of its own (see Authentication). An
      // absent bearer token fails at once, so the session scheme (tried next) decides.
      bearer: (httpEffect, { credential, endpoint }) =>
        Redacted.value(credential) === ""
          ? Effect.fail(noCredentials)
          : Effect.flatMap(byKey(credential), (principal) =>
              Effect.andThen(
                checkScope(principal, endpoint),
                Effect.withFiber((fiber) =>
                  serve(
                    httpEffect,
                    principal,
                    Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest),
                    endpoint
                  )
                )
              )
            ),
      // Tried when the bearer scheme failed: its answer is the request's. A request that sent an API key gets the
      // key's error (it is checked again: only requests that fail pay twice), one without credentials a 401.
      // Chained like the bearer scheme: every request of a signed-in browser passes here (a generator measured
      // ~20 us of the ~55 us a cookie added per request).
      session: (httpEffect, { credential, endpoint }) =>
        Effect.withFiber((fiber) => {
          const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
          const authorization = request.headers.authorization
          let principal: Effect.Effect<
            Principal,
            Unauthenticated | PermissionDenied,
            HttpServerRequest.HttpServerRequest
          >
          // Only a bearer token is a key: another scheme (`Basic` from a reverse proxy that asks for a password
          // of its own) is not Gatehouse's, and leaves the cookie to decide.
          if (authorization !== undefined && /^Bearer(\s|$)/i.test(authorization)) {
            const key = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1]
            principal = key === undefined ? Effect.fail(noCredentials) : byKey(Redacted.make(key))
          } else if (Redacted.value(credential) === "") principal = Effect.fail(noCredentials)
          else principal = bySession(request, credential, endpoint)
          return Effect.flatMap(principal, (p) =>
            Effect.andThen(checkScope(p, endpoint), serve(httpEffect, p, request, endpoint))
          )
        })
    })
  })
)
