import { GatehouseApi, maxBodyBytesOf } from "@gatehouse-edge/contract/api"
import * as FindMyWay from "effect/http/FindMyWay"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpApi from "effect/http-api/HttpApi"
import { apiRouterConfig } from "./EndpointPaths.js"

// The endpoints that declare a body limit of their own (`takesBodiesUpTo` in the contract), in a router configured
// as the server's: a request gets the limit of the endpoint the server's router picks for it.
const declared = (() => {
  const router = FindMyWay.make<number>(apiRouterConfig)
  HttpApi.reflect(GatehouseApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const limit = maxBodyBytesOf(mergedAnnotations)
      if (limit !== undefined) router.on(endpoint.method, endpoint.path as FindMyWay.PathInput, limit)
    }
  })
  return router
})()

/**
 * The largest body the server takes for `request`: the server's own limit, or the endpoint's when it declares a
 * larger one (a file write takes a whole file). The endpoint is looked up only for a body the server's limit would
 * refuse or cannot bound by its declared length (chunked): most requests have none, or a small one.
 */
export const bodyLimitFor = (request: HttpServerRequest.HttpServerRequest, serverLimit: number): number => {
  const length = request.headers["content-length"]
  const beyond =
    length === undefined ? request.headers["transfer-encoding"] !== undefined : Number(length) > serverLimit
  return beyond ? Math.max(serverLimit, declared.find(request.method, request.url)?.handler ?? 0) : serverLimit
}
