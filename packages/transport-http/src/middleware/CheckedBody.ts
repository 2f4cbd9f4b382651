import { maxBodyBytesOf } from "@gatehouse-edge/contract/api"
import * as Effect from "effect/Effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type { BodiesInFlightShape } from "./BodiesInFlight.js"
import { announcedBodyBytes, checkTextBody } from "./TextBody.js"

/**
 * Whether the middleware reads the body of `request` before its handler runs (to check its UTF-8): a request with a
 * body to an endpoint that takes one. Not a file write's (an endpoint that declares a larger limit): its handler
 * reads that once the write has room for it (`readTextBody`).
 */
export const bodyReadAhead = (request: HttpServerRequest.HttpServerRequest, endpoint: HttpApiEndpoint.Top): boolean =>
  endpoint.payload.size > 0 &&
  request.method !== "GET" &&
  request.method !== "HEAD" &&
  maxBodyBytesOf(endpoint.annotations) === undefined

/**
 * Reads and checks the body of `request` (see {@link checkTextBody}), counted among the bodies in flight at the most
 * it can be (its `Content-Length`, or the reading limit when chunked) until `next` is over, then runs `next`. Only
 * once the caller may send it: after authorization, or on an endpoint anyone may call.
 */
export const withCheckedBody = <E, R>(
  bodies: BodiesInFlightShape,
  request: HttpServerRequest.HttpServerRequest,
  next: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
) =>
  Effect.withFiber((fiber) => {
    const limit = fiber.getRef(HttpIncomingMessage.MaxBodySize)
    const sent = request.headers["content-length"] !== undefined || request.headers["transfer-encoding"] !== undefined
    const bytes = sent
      ? announcedBodyBytes(request, limit === undefined ? bodies.limits.perClientBytes : Number(limit))
      : 0
    return bodies.holding(request, bytes, Effect.andThen(checkTextBody(request), next))
  })
