import { PermissionDenied } from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import { WebSocketPolicy, type WebSocketPolicyShape } from "./WebSocketPolicy.js"

const refuse = (message: string) => Effect.fail(new PermissionDenied({ message }))

const unbracketed = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase()

// `[::1]:8888` → `::1`; `localhost:8888` → `localhost`.
const hostnameOf = (host: string) => {
  const url = URL.canParse(`http://${host}`) ? new URL(`http://${host}`) : undefined
  return url === undefined ? undefined : { hostname: unbracketed(url.hostname), port: url.port }
}

/**
 * What is wrong with a request's `Host` and `Origin` for a browser-facing action, or `undefined`:
 * - `Host` must name this server by one of the allowed host names: a page on `evil.example` whose name the
 *   attacker points at this server's address (DNS rebinding) sends `Host: evil.example` and is refused;
 * - `Origin`, when a browser sends one, must be this very origin: `http://` + the `Host` (this server does not
 *   speak TLS itself), or the configured public origin (`http.public_url`, behind a TLS-terminating proxy).
 *   Non-browser clients send no `Origin` and pass.
 */
export const originProblem = (
  request: HttpServerRequest.HttpServerRequest,
  policy: WebSocketPolicyShape
): string | undefined => {
  const hostHeader = request.headers.host
  const host = hostHeader === undefined ? undefined : hostnameOf(hostHeader)
  if (host === undefined) return "missing or malformed Host header"
  if (!policy.allowedHosts.some((allowed) => allowed.toLowerCase() === host.hostname)) {
    return `Host ${hostHeader} is not a name of this server (allowed: ${policy.allowedHosts.join(", ")})`
  }
  const origin = request.headers.origin
  if (origin === undefined) return undefined
  if (policy.publicOrigin !== undefined && origin.toLowerCase() === policy.publicOrigin.toLowerCase()) return undefined
  const parsed = URL.canParse(origin) ? new URL(origin) : undefined
  const sameOrigin =
    parsed !== undefined &&
    parsed.protocol === "http:" &&
    unbracketed(parsed.hostname) === host.hostname &&
    parsed.port === host.port
  return sameOrigin ? undefined : `cross-origin request from ${origin} refused`
}

/**
 * The checks a WebSocket upgrade needs beyond authentication, because browsers attach cookies to handshakes and
 * do not apply CORS to them: {@link originProblem}.
 */
export const checkUpgradeOrigin = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<void, PermissionDenied> =>
  Effect.gen(function* () {
    const problem = originProblem(request, yield* WebSocketPolicy)
    if (problem === undefined) return
    return yield* refuse(problem.startsWith("cross-origin") ? problem.replace("request", "WebSocket") : problem)
  })
