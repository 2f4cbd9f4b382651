import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatehouseApi } from "./api/GatehouseApi.js"
import { EventsHandlers } from "./handlers/EventsHandlers.js"
import { FilesHandlers } from "./handlers/FilesHandlers.js"
import { HealthHandlers } from "./handlers/HealthHandlers.js"
import { RoutesHandlers } from "./handlers/RoutesHandlers.js"
import { SystemHandlers } from "./handlers/SystemHandlers.js"
import { type HttpLimits, layerApiResponses } from "./middleware/ApiResponses.js"
import { layerAuthentication } from "./middleware/AuthenticationAdapter.js"
import { layerRequestValidation } from "./middleware/RequestValidationLayer.js"
import { TrackedWebSocket } from "./websocket/TrackedWebSocket.js"
import { layerShutdownTrigger, ShutdownSignal } from "./websocket/WebSocketSession.js"

/** Every route of the API with its handlers and middleware. Needs the core services and a `ServerDescription`. */
export const layerApiRoutes = HttpApiBuilder.layer(GatehouseApi).pipe(
  Layer.provide([SystemHandlers, RoutesHandlers, HealthHandlers, EventsHandlers, FilesHandlers]),
  Layer.provide([layerRequestValidation, layerAuthentication])
)

/**
 * The API served on an `HttpServer`, behind the request-id / limits / error-body middleware. On shutdown,
 * WebSocket streams close with 1001 first, then in-flight requests get the server's graceful timeout to finish.
 */
export const layerHttpApp = (limits: HttpLimits) =>
  layerShutdownTrigger.pipe(
    Layer.provideMerge(
      HttpRouter.serve(Layer.mergeAll(layerApiRoutes, layerApiResponses(limits)), {
        disableLogger: true,
        disableListenLog: true
      })
    ),
    Layer.provide(ShutdownSignal.layer)
  )

/** Where the HTTP server listens. */
export interface ListenOptions {
  readonly host: string
  readonly port: number
  /** How long in-flight requests get to finish on shutdown. */
  readonly gracefulShutdownMs?: number
}

/** A Node HTTP server configured for the API: tracked WebSockets (see TrackedWebSocket), 1 MiB WebSocket messages. */
export const layerNodeHttpServer = (
  options: ListenOptions,
  limits: { readonly maxWebSocketMessageBytes?: number } = {}
) =>
  NodeHttpServer.layer(createServer, {
    host: options.host,
    port: options.port,
    gracefulShutdownTimeout: options.gracefulShutdownMs ?? 10_000,
    websocket: { WebSocket: TrackedWebSocket, maxPayload: limits.maxWebSocketMessageBytes ?? 1024 * 1024 }
  })
