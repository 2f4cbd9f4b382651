import { PermissionDenied, type Principal, toWireError, Unauthenticated } from "@gatehouse-edge/core/domain"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"

/** The authenticated caller, available to every handler behind {@link Authorization}. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()(
  "@gatehouse-edge/transport-http/CurrentPrincipal"
) {}

/**
 * Authentication of protected endpoints: `Authorization: Bearer gh_<prefix>_<secret>` API keys.
 * Sessions and OIDC plug into this same middleware later; the contract and the client do not change.
 */
export class Authorization extends HttpApiMiddleware.Service<Authorization, { provides: CurrentPrincipal }>()(
  "@gatehouse-edge/transport-http/Authorization",
  {
    requiredForClient: true,
    security: { bearer: HttpApiSecurity.bearer },
    // 403: authenticated but not allowed, e.g. a cross-origin WebSocket handshake.
    error: [toWireError(Unauthenticated), toWireError(PermissionDenied)]
  }
) {}
