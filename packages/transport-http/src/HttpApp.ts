import { GatehouseApi } from "@gatehouse-edge/contract/api"
import {
  ApiKeys,
  AuthRequests,
  Certificates,
  Docker,
  Events,
  Files,
  Health,
  Hypervisor,
  Login,
  RouteList,
  RouteValidator,
  Sessions,
  Uptime
} from "@gatehouse-edge/core/services"
import * as ByteSize from "effect/ByteSize"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as Layer from "effect/Layer"
import { AccessHandlers } from "./handlers/AccessHandlers.js"
import { AuthRequestsHandlers } from "./handlers/AuthRequestsHandlers.js"
import { CertsHandlers } from "./handlers/CertsHandlers.js"
import { DockerHandlers } from "./handlers/DockerHandlers.js"
import { EventsHandlers } from "./handlers/EventsHandlers.js"
import { FilesHandlers } from "./handlers/FilesHandlers.js"
import { HealthHandlers } from "./handlers/HealthHandlers.js"
import { HypervisorHandlers } from "./handlers/HypervisorHandlers.js"
import { LoginHandlers } from "./handlers/LoginHandlers.js"
import { MetricsHandlers } from "./handlers/MetricsHandlers.js"
import { withOwnContext } from "./handlers/OwnContext.js"
import { RoutesHandlers } from "./handlers/RoutesHandlers.js"
import { ServerDescription, SystemHandlers } from "./handlers/SystemHandlers.js"
import { type HttpLimits, layerApiResponses } from "./middleware/ApiResponses.js"
import { layerAuthentication } from "./middleware/AuthenticationAdapter.js"
import {
  BodiesInFlight,
  DEFAULT_BODY_BYTES_IN_FLIGHT,
  DEFAULT_BODY_BYTES_IN_FLIGHT_PER_CLIENT,
  makeBodiesInFlight
} from "./middleware/BodiesInFlight.js"
import { apiRouterConfig } from "./middleware/EndpointPaths.js"
import { layerRequestValidation } from "./middleware/RequestValidationLayer.js"
import { layerPages } from "./pages/PageRoutes.js"
import { serveWithoutCore } from "./ServeWithoutCore.js"
import { WebSocketConnections } from "./websocket/WebSocketConnections.js"
import { layerShutdownTrigger, ShutdownSignal } from "./websocket/WebSocketSession.js"

/** Every route of the API with its handlers and middleware. Needs the core services and a `ServerDescription`. */
export const layerApiRoutes = HttpApiBuilder.layer(GatehouseApi).pipe(
  // Each group in a context of the services its handlers take (see withOwnContext).
  Layer.provide([
    withOwnContext(SystemHandlers, ServerDescription),
    withOwnContext(LoginHandlers, Login, Sessions),
    withOwnContext(AccessHandlers, ApiKeys, Sessions),
    withOwnContext(RoutesHandlers, RouteList, RouteValidator),
    withOwnContext(HealthHandlers, Health),
    withOwnContext(EventsHandlers, Events),
    withOwnContext(FilesHandlers, Files),
    withOwnContext(AuthRequestsHandlers, AuthRequests),
    withOwnContext(HypervisorHandlers, Hypervisor),
    withOwnContext(DockerHandlers, Docker),
    withOwnContext(CertsHandlers, Certificates),
    withOwnContext(MetricsHandlers, Uptime)
  ]),
  Layer.provide([layerRequestValidation, layerAuthentication])
)

/**
 * The API served on an `HttpServer`, behind the request-id / limits / error-body middleware. On shutdown,
 * WebSocket streams close with 1001 first, then in-flight requests get the server's graceful timeout to finish.
 */
export const layerHttpApp = (limits: HttpLimits) =>
  layerShutdownTrigger.pipe(
    Layer.provideMerge(
      // The stream matcher of layerApiResponses matches paths with the same configuration (isStreamEndpoint).
      serveWithoutCore(Layer.mergeAll(layerApiRoutes, layerPages, layerApiResponses(limits)), {
        routerConfig: apiRouterConfig
      }).pipe(
        // The limit on chunked bodies (a declared length is checked by layerApiResponses), set once for every
        // request rather than per request: each change to a request's context slows the lookups after it.
        Layer.provide(Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limits.maxBodyBytes))),
        // This server's own count of the bodies being read (the middleware reads it when the routes are built).
        Layer.provide(
          Layer.sync(BodiesInFlight, () =>
            makeBodiesInFlight({
              totalBytes: limits.bodiesInFlight?.totalBytes ?? DEFAULT_BODY_BYTES_IN_FLIGHT,
              perClientBytes: limits.bodiesInFlight?.perClientBytes ?? DEFAULT_BODY_BYTES_IN_FLIGHT_PER_CLIENT
            })
          )
        )
      )
    ),
    // The connection counts stay in the output: an embedding process (or a test) can read them.
    Layer.provideMerge(WebSocketConnections.layer),
    Layer.provide(ShutdownSignal.layer)
  )
