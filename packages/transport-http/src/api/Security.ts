import { PermissionDenied, toWireError, Unauthenticated } from "@gatehouse-edge/core/domain"
import type { CurrentPrincipal } from "@gatehouse-edge/core/services"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"

/**
 * Authentication of protected endpoints: `Authorization: Bearer gh_<prefix>_<secret>` API keys. Handlers behind it
 * get the caller as `CurrentPrincipal`. Sessions plug into this same middleware later; the contract and the client
 * do not change.
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
