import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { UpgradeRequired } from "@gatehouse-edge/core/domain"
import { RouteList, RouteValidator } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Stream from "effect/Stream"
import { isWebSocketUpgrade, serveDuplexStream, serveStream } from "../websocket/StreamEndpoint.js"
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
          isWebSocketUpgrade(request)
            ? serveDuplexStream(StreamEndpoints.validate, (documents) =>
                Stream.flatMap(documents, (document) =>
                  Stream.flatMap(Stream.fromEffect(validator.frames(document)), Stream.fromIterable)
                )
              )
            : Effect.fail(new UpgradeRequired({ path: "/api/v1/route/validate" }))
        )
        .handle("list", ({ request }) =>
          isWebSocketUpgrade(request) ? serveStream(StreamEndpoints.routes, routeList.changes) : routeList.list
        )
        .handle("get", ({ params }) => routeList.get(params.alias))
    )
  })
)
