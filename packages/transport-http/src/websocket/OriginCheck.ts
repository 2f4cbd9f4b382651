import { PermissionDenied } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"

/**
 * Browsers attach `Origin` to WebSocket handshakes and do not apply CORS to them, so a page on another site
 * could otherwise open streams with the user's credentials. Non-browser clients send no Origin and pass.
 */
export const checkSameOrigin = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<void, PermissionDenied> => {
  const origin = request.headers.origin
  if (origin === undefined) return Effect.void
  const host = request.headers.host
  const sameOrigin = host !== undefined && URL.canParse(origin) && new URL(origin).host === host
  return sameOrigin
    ? Effect.void
    : Effect.fail(new PermissionDenied({ message: `cross-origin WebSocket from ${origin} refused` }))
}
