import { randomUUID } from "node:crypto"
import { clientKeyOf, type ErrorBody, type ErrorCode, ErrorCodes } from "@gatehouse-edge/core/domain"
import { storeTroubleIn } from "@gatehouse-edge/core/services"
import * as ByteSize from "effect/ByteSize"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { decideClientAddress, type TrustedProxy } from "../websocket/ClientAddress.js"
import { pathOf, shortened } from "../websocket/RequestedPath.js"
import { isWebSocketUpgrade } from "../websocket/StreamEndpoint.js"
import { logAccess } from "./AccessLog.js"
import type { BodiesInFlightLimits } from "./BodiesInFlight.js"
import { bodyLimitFor } from "./BodyLimits.js"
import { allowedMethods, emptyPathParameter, hasMalformedEscape, isStreamEndpoint } from "./EndpointPaths.js"
import { interruptedStatus } from "./InterruptedStatus.js"
import { rememberRequestId } from "./RequestIds.js"

/** Request limits of the HTTP API. */
export interface HttpLimits {
  /**
   * Largest accepted request body; larger bodies get 413 before they are read. An endpoint may declare a larger
   * one in the contract (`takesBodiesUpTo`: a file write takes a whole file).
   */
  readonly maxBodyBytes: number
  /**
   * Requests one client address may have in flight at once (WebSocket streams are counted separately, see
   * `WebSocketPolicy`); more get 429 with `Retry-After`. Default 256.
   */
  readonly maxConcurrentRequestsPerClient?: number | undefined
  /** Reverse proxies whose `X-Forwarded-For` names the client (`http.trusted_proxies`); none by default. */
  readonly trustedProxy?: TrustedProxy | undefined
  /**
   * Bytes the request bodies being read may hold, all clients together and each client's share (see
   * `BodiesInFlight`); 64 MiB and 16 MiB by default.
   */
  readonly bodiesInFlight?: Partial<BodiesInFlightLimits> | undefined
}

/** Seconds a client over a cap is told to wait (`Retry-After`). */
const RETRY_AFTER_S = 1

// The generic code for an HTTP status, for error responses produced below the API layer.
const codeForStatus = new Map<number, ErrorCode>(
  (
    [
      "invalid_argument",
      "unauthenticated",
      "permission_denied",
      "not_found",
      "method_not_allowed",
      "payload_too_large",
      "unsupported_media_type",
      "upgrade_required",
      "rate_limited",
      "internal",
      "unavailable"
    ] as const
  ).map((code) => [ErrorCodes[code].http, code])
)

const defaultMessages: Record<number, string> = {
  400: "bad request",
  404: "not found",
  405: "method not allowed",
  413: "request body too large",
  415: "unsupported content type",
  426: "this endpoint needs a WebSocket upgrade",
  500: "internal error",
  503: "server is shutting down"
}

/** An error response in the shared body shape. */
export const errorResponse = (
  status: number,
  message: string,
  extra?: { readonly request_id?: string; readonly code?: ErrorCode }
): HttpServerResponse.HttpServerResponse => {
  const body: ErrorBody = {
    error: {
      code: extra?.code ?? codeForStatus.get(status) ?? (status >= 500 ? "internal" : "invalid_argument"),
      message,
      ...(extra?.request_id === undefined ? {} : { request_id: extra.request_id })
    }
  }
  return HttpServerResponse.jsonUnsafe(body, { status })
}

const bodyHeaders = new Set(["content-type", "content-length", "content-encoding", "transfer-encoding", "etag"])

// A JSON body is already an error body; an HTML page (the login page with its error) is meant for a person.
const hasOwnBody = (response: HttpServerResponse.HttpServerResponse) => {
  const contentType =
    response.headers["content-type"] ?? ("contentType" in response.body ? response.body.contentType : "")
  return typeof contentType === "string" && (contentType.includes("json") || contentType.startsWith("text/html"))
}

// Responses produced below the API layer (router 404, HttpApi's bare 415/413/426) get the shared body too.
const withErrorBody = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  requestId: string
) => {
  if (response.status < 400 || response.status === 499 || hasOwnBody(response)) return response
  // An endpoint's own 415 names what it takes (RequestValidation); one from below it cannot know the endpoint.
  const message =
    response.status === 415
      ? `unsupported content type ${request.headers["content-type"] ?? "(none)"}`
      : (defaultMessages[response.status] ?? "request failed")
  const replaced = errorResponse(response.status, message, response.status >= 500 ? { request_id: requestId } : {})
  // Keep what the original said about the exchange (Allow, Upgrade, Accept-Encoding), not about its old body.
  const kept = Object.entries(response.headers).filter(([name]) => !bodyHeaders.has(name.toLowerCase()))
  return HttpServerResponse.setHeaders(replaced, Object.fromEntries(kept))
}

/** Seconds a client is told to wait when the store is held by another process or restarting. */
const STORE_RETRY_AFTER_S = 5

/**
 * What a defect answers: a store that cannot serve (full, locked, read-only, damaged, unreachable) is a 503 that
 * says so, retryable when waiting can help; anything else is a generic 500. Either way the cause is in the log
 * under the request id, and nothing of it (paths, SQL, driver messages) goes to the client.
 */
const unexpectedFailure = (cause: Cause.Cause<unknown>, requestId: string) => {
  const trouble = storeTroubleIn(cause)
  if (trouble === undefined) return errorResponse(500, "internal error", { request_id: requestId })
  const message = `the server's store ${trouble.problem}${trouble.transient ? ": try again shortly" : ""}`
  const response = errorResponse(503, message, { request_id: requestId, code: "unavailable" })
  return trouble.transient
    ? HttpServerResponse.setHeader(response, "retry-after", String(STORE_RETRY_AFTER_S))
    : response
}

const findBodyTooLarge = (cause: Cause.Cause<unknown>) =>
  cause.reasons
    .map((reason) =>
      Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    )
    .some(
      (error) =>
        HttpServerError.isHttpServerError(error) &&
        error.reason instanceof HttpServerError.RequestParseError &&
        error.reason.reason === "BodyTooLarge"
    )

const findRouteNotFound = (cause: Cause.Cause<unknown>) =>
  cause.reasons.some(
    (reason) =>
      Cause.isFailReason(reason) &&
      HttpServerError.isHttpServerError(reason.error) &&
      reason.error.reason instanceof HttpServerError.RouteNotFound
  )

const incomingRequestId = (header: string | undefined) =>
  header !== undefined && /^[A-Za-z0-9._-]{1,64}$/.test(header) ? header : undefined

/**
 * The outermost layer of every request: a request id (`x-request-id`, echoed or generated, on every response and
 * every log line), the body size limit (413 from `Content-Length` before anything is read, and for a body that
 * grows past it while read: `layerHttpApp` sets the reading limit), the shared error body for every error
 * response, a generic 500 for defects (the cause goes to the log with the request id, never to the client), and
 * one structured access-log line per request.
 *
 * Every request passes here, so it is written for the per-request cost: the steps are plain code inside one
 * `withFiber`, with one `onExit` (the in-flight count) and one `matchCauseEffect` around the app. Measured
 * (bench/http-cpu.ts, `/health` with 1,000 routes): as a chain of `Effect.exit`, `flatMap`s, `Clock` effects and
 * `ensuring`, with WeakMaps for the id and the client and an object stringified per access line, the server spent
 * 103 µs a request against 80 now; as a generator it was slower again.
 */
export const layerApiResponses = (limits: HttpLimits) => {
  const maxInFlight = limits.maxConcurrentRequestsPerClient ?? 256
  const inFlight = new Map<string, number>()
  const release = (client: string) => {
    const left = (inFlight.get(client) ?? 1) - 1
    if (left === 0) inFlight.delete(client)
    else inFlight.set(client, left)
  }
  const tooLarge = (limit: number) => errorResponse(413, `request body exceeds the limit of ${limit} bytes`)

  return HttpRouter.middleware(
    (app) =>
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const clock = fiber.getRef(Clock.Clock)
        const started = clock.currentTimeMillisUnsafe()
        const requestId = incomingRequestId(request.headers["x-request-id"]) ?? randomUUID()
        rememberRequestId(request, requestId)
        const client = decideClientAddress(request, limits.trustedProxy)
        const bodyLimit = bodyLimitFor(request, limits.maxBodyBytes)
        // The reading limit of a larger one (`layerHttpApp` sets the server's for every request).
        const served =
          bodyLimit === limits.maxBodyBytes
            ? app
            : Effect.provideService(app, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(bodyLimit))

        const accessLine = (status: number) =>
          logAccess(fiber, {
            method: request.method,
            path: shortened(pathOf(request)),
            status,
            duration_ms: clock.currentTimeMillisUnsafe() - started,
            request_id: requestId
          })
        // The access-log line, then the response with its request id (and Retry-After on a 429).
        const finish = (response: HttpServerResponse.HttpServerResponse) => {
          const logged = accessLine(response.status)
          const answered = HttpServerResponse.setHeader(
            response.status === 429 && response.headers["retry-after"] === undefined
              ? HttpServerResponse.setHeader(response, "retry-after", String(RETRY_AFTER_S))
              : response,
            "x-request-id",
            requestId
          )
          return logged === undefined ? Effect.succeed(answered) : Effect.as(logged, answered)
        }

        // What a failed request answers. Interruptions stay interruptions (the server below answers them, if the
        // connection still takes an answer), but they were requests too: each gets its access line.
        const failed = (cause: Cause.Cause<unknown>): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> => {
          if (Cause.hasInterruptsOnly(cause)) {
            const logged = accessLine(interruptedStatus(request, cause))
            return logged === undefined ? Effect.failCause(cause) : Effect.andThen(logged, Effect.failCause(cause))
          }
          if (findBodyTooLarge(cause)) return finish(tooLarge(bodyLimit))
          if (findRouteNotFound(cause)) {
            const requested = pathOf(request)
            // The router matches decoded paths: one that does not decode is matched by none, whatever it names.
            if (hasMalformedEscape(requested)) {
              return finish(errorResponse(400, `invalid path: malformed percent-encoding in ${shortened(requested)}`))
            }
            const empty = emptyPathParameter(request.method, requested)
            if (empty !== undefined) return finish(errorResponse(400, `invalid path: the ${empty} must not be empty`))
            // A path the API serves, with another method: 405 with the methods it takes (RFC 9110 §15.5.6).
            const allowed = allowedMethods(requested)
            if (allowed.length > 0 && !allowed.includes(request.method)) {
              const message = `${request.method} is not allowed on ${shortened(requested)}: use ${allowed.join(", ")}`
              return finish(HttpServerResponse.setHeader(errorResponse(405, message), "allow", allowed.join(", ")))
            }
            // The method is one the path takes, yet the router matched nothing: the path is what cannot be served.
            if (allowed.length > 0) return finish(errorResponse(400, `invalid path: ${shortened(requested)}`))
            return finish(errorResponse(404, `no such endpoint: ${request.method} ${shortened(requested)}`))
          }
          return Effect.flatMap(HttpServerError.causeResponse(cause), ([derived]) =>
            derived.status >= 500
              ? Effect.andThen(
                  Effect.logError("request failed", cause),
                  // After the error's line: the access line is the request's last.
                  Effect.suspend(() => finish(unexpectedFailure(cause, requestId)))
                )
              : finish(withErrorBody(request, derived, requestId))
          )
        }
        const answer = (handled: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>) =>
          Effect.matchCauseEffect(handled, {
            onSuccess: (response) => finish(withErrorBody(request, response, requestId)),
            onFailure: failed
          })

        if (Number(request.headers["content-length"] ?? 0) > bodyLimit) return finish(tooLarge(bodyLimit))
        // A WebSocket session is one long request: it counts against the stream caps instead. Only a handshake to
        // a declared stream endpoint: Node serves any request with upgrade headers through the app, and an endpoint
        // that is no stream answers it as a plain request, which takes no stream place (the headers are checked
        // first: the route is looked up for a handshake only).
        if (isWebSocketUpgrade(request) && isStreamEndpoint(request.method, request.url)) return answer(served)
        // Counted per client (an IPv6 /64 is one: see clientKeyOf).
        const counted = clientKeyOf(client)
        const current = inFlight.get(counted) ?? 0
        if (current >= maxInFlight) {
          return finish(
            errorResponse(429, `too many concurrent requests from ${counted} (limit ${maxInFlight}): retry shortly`)
          )
        }
        // Counted and its release registered with no interruption in between: a client that leaves at that moment
        // must not keep a place for good.
        return answer(
          Effect.uninterruptibleMask((restore) => {
            inFlight.set(counted, (inFlight.get(counted) ?? 0) + 1)
            return Effect.onExit(restore(served), () => Effect.sync(() => release(counted)))
          })
        )
      }),
    { global: true }
  )
}
