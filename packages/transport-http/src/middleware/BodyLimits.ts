import { Authorization, GatehouseApi, maxBodyBytesOf } from "@gatehouse-edge/contract/api"
import * as FindMyWay from "effect/http/FindMyWay"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApi from "effect/http-api/HttpApi"
import { apiRouterConfig } from "./EndpointPaths.js"

/**
 * The largest body an endpoint anyone may call takes (sign-in, sign-out): such a body is read before the caller is
 * known, and a login form or JSON is a few hundred bytes.
 */
export const PUBLIC_BODY_BYTES = 16 * 1024

// The limit of an endpoint whose bodies are not the server's: larger (`takesBodiesUpTo` in the contract: a file
// write takes a whole file), or smaller (public).
interface EndpointLimit {
  readonly bytes: number
  readonly public: boolean
}

// The endpoints with a body limit of their own, in a router configured as the server's: a request gets the limit
// of the endpoint the server's router picks for it.
const declared = (() => {
  const router = FindMyWay.make<EndpointLimit>(apiRouterConfig)
  HttpApi.reflect(GatehouseApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const path = endpoint.path as FindMyWay.PathInput
      const limit = maxBodyBytesOf(mergedAnnotations)
      if (limit !== undefined) router.on(endpoint.method, path, { bytes: limit, public: false })
      else if (endpoint.payload.size > 0 && !endpoint.middlewares.has(Authorization)) {
        router.on(endpoint.method, path, { bytes: PUBLIC_BODY_BYTES, public: true })
      }
    }
  })
  return router
})()

/**
 * The largest body the server takes for `request`: the server's own limit, the endpoint's when it declares a larger
 * one (a file write takes a whole file), or {@link PUBLIC_BODY_BYTES} for an endpoint anyone may call. The endpoint
 * is looked up only for a body over that small limit or whose length is not declared (chunked): most requests have
 * none, or a small one.
 */
export const bodyLimitFor = (request: HttpServerRequest.HttpServerRequest, serverLimit: number): number => {
  const length = request.headers["content-length"]
  const beyond =
    length === undefined
      ? request.headers["transfer-encoding"] !== undefined
      : Number(length) > Math.min(serverLimit, PUBLIC_BODY_BYTES)
  if (!beyond) return serverLimit
  const limit = declared.find(request.method, request.url)?.handler
  if (limit === undefined) return serverLimit
  return limit.public ? Math.min(serverLimit, limit.bytes) : Math.max(serverLimit, limit.bytes)
}
