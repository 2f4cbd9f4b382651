import { PermissionDenied } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { WebSocketPolicy } from "./WebSocketPolicy.js"

const refuse = (message: string) => Effect.fail(new PermissionDenied({ message }))

// `[::1]:8888` → `::1`; `localhost:8888` → `localhost`.
const hostnameOf = (host: string) => {
  const url = URL.canParse(`http://${host}`) ? new URL(`http://${host}`) : undefined
  return url === undefined
    ? undefined
    : { hostname: url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase(), port: url.port }
}

/**
 * The checks a WebSocket upgrade needs beyond authentication, because browsers attach cookies to handshakes and
 * do not apply CORS to them:
 * - `Host` must name this server by one of the allowed host names: a page on `evil.example` whose name the
 *   attacker points at this server's address (DNS rebinding) sends `Host: evil.example` and is refused;
 * - `Origin`, when a browser sends one, must be this very origin: same scheme (`http`: this server does not speak
 *   TLS itself), host and port as `Host`. Non-browser clients send no `Origin` and pass.
 */
export const checkUpgradeOrigin = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<void, PermissionDenied> =>
  Effect.gen(function* () {
    const policy = yield* WebSocketPolicy
    const hostHeader = request.headers.host
    const host = hostHeader === undefined ? undefined : hostnameOf(hostHeader)
    if (host === undefined) return yield* refuse("missing or malformed Host header")
    if (!policy.allowedHosts.some((allowed) => allowed.toLowerCase() === host.hostname)) {
      return yield* refuse(
        `Host ${hostHeader} is not a name of this server (allowed: ${policy.allowedHosts.join(", ")})`
      )
    }
    const origin = request.headers.origin
    if (origin === undefined) return
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined
    const sameOrigin =
      parsed !== undefined &&
      parsed.protocol === "http:" &&
      parsed.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase() === host.hostname &&
      parsed.port === host.port
    if (!sameOrigin) return yield* refuse(`cross-origin WebSocket from ${origin} refused`)
  })
