import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { RouteList, RouteValidator } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Stream from "effect/Stream"
import { serveDuplexStream, serveStream, streamOnly, streamOrPlain } from "../websocket/StreamEndpoint.js"
import { jsonResponse } from "./JsonResponse.js"

/** Handlers of the `routes` group: validation (one document, or a stream of them) and the route list. */
export const RoutesHandlers = HttpApiBuilder.group(GatehouseApi, "routes", (handlers) =>
  Effect.gen(function* () {
    const routeList = yield* RouteList
    const validator = yield* RouteValidator
    return (
      handlers
        // The body comes rendered (for a large document on the validation worker thread), exactly as the API would
        // encode the routes: the event loop only writes it.
        .handle("validate", ({ payload }) => Effect.map(validator.validateJson(payload, "route"), jsonResponse))
        .handle("validateStream", ({ request }) =>
          streamOnly(StreamEndpoints.validate, request, (endpoint) =>
            serveDuplexStream(endpoint, (documents) =>
              Stream.flatMap(documents, (document) =>
                Stream.flatMap(Stream.fromEffect(validator.frames(document)), Stream.fromIterable)
              )
            )
          )
        )
        .handle("list", ({ request }) =>
          streamOrPlain(
            StreamEndpoints.routes,
            request,
            (endpoint) => serveStream(endpoint, routeList.changes),
            routeList.list
          )
        )
        .handle("get", ({ params }) => routeList.get(params.alias))
    )
  })
)
