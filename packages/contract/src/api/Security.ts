import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as OpenApi from "effect/http-api/OpenApi"
import type { CurrentPrincipal } from "../domain/CurrentPrincipal.js"
import { MissingScope, PermissionDenied, toWireError, Unauthenticated } from "../domain/index.js"

/** The session cookie a browser gets when it signs in (HttpOnly, SameSite=Lax; Secure behind TLS). */
export const SessionCookieName = "gatehouse_session"

/** The cookie that carries a session's CSRF token, for the page's script to send back as `X-CSRF-Token`. */
export const CsrfCookieName = "gatehouse_csrf"

/** The header a cookie-authenticated unsafe request (POST, PUT, DELETE, ...) must carry its CSRF token in. */
export const CsrfHeaderName = "x-csrf-token"

/** What a cookie-authenticated unsafe request without its session's CSRF token is refused with (403). */
export const CsrfRefusedMessage = "missing or wrong CSRF token: send the gatehouse_csrf cookie's value as X-CSRF-Token"

/** `Authorization: Bearer gh_<prefix>_<secret>`: API keys, for scripts, the CLI and other servers. */
export const bearerScheme = HttpApiSecurity.bearer.pipe(
  HttpApiSecurity.annotateMerge(
    OpenApi.annotations({
      description: "An API key `gh_<prefix>_<secret>` (`gatehouse apikey create`, or the admin key in data/admin.key)"
    })
  )
)

/** The `gatehouse_session` cookie of a signed-in browser; unsafe methods also need `X-CSRF-Token`. */
export const sessionCookieScheme = HttpApiSecurity.apiKey({ key: SessionCookieName, in: "cookie" }).pipe(
  HttpApiSecurity.annotateMerge(
    OpenApi.annotations({
      description:
        "The session cookie set by `POST /auth/login` or the OIDC callback. With it, POST, PUT, PATCH and DELETE " +
        "must send the `gatehouse_csrf` cookie's value as `X-CSRF-Token`, and WebSocket upgrades must come from " +
        "this server's origin."
    })
  )
)

/**
 * Authentication of protected endpoints: an API key or a session cookie (either one). Handlers behind it get the
 * caller as `CurrentPrincipal`, after the caller's scopes were checked against the scope the endpoint declares
 * (`RequiredScope`): 401 without valid credentials, 403 for a missing scope, a missing CSRF token or a
 * cross-origin WebSocket.
 */
export class Authorization extends HttpApiMiddleware.Service<Authorization, { provides: CurrentPrincipal }>()(
  "@gatehouse-edge/contract/Authorization",
  {
    requiredForClient: true,
    security: { bearer: bearerScheme, session: sessionCookieScheme },
    error: [toWireError(Unauthenticated), toWireError(PermissionDenied), toWireError(MissingScope)]
  }
) {}
