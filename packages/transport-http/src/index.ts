/**
 * @gatehouse-edge/transport-http — the HTTP + WebSocket transport of the Gatehouse API: handlers for the contract in
 * `@gatehouse-edge/transport-http/api`, the authentication adapter, shared error bodies, the WebSocket streams and
 * the OpenAPI document. It depends on the core's ports only (`@gatehouse-edge/core/services`), never on drivers.
 */
export * from "@gatehouse-edge/contract/api"
export { layerApiRoutes, layerHttpApp } from "./HttpApp.js"
export { EventsHandlers } from "./handlers/EventsHandlers.js"
export { FilesHandlers } from "./handlers/FilesHandlers.js"
export { HealthHandlers } from "./handlers/HealthHandlers.js"
export { RoutesHandlers } from "./handlers/RoutesHandlers.js"
export { ServerDescription, SystemHandlers } from "./handlers/SystemHandlers.js"
export { type AccessLogEntry, type AccessLogWrite, AccessLogWriter } from "./middleware/AccessLog.js"
export { errorResponse, type HttpLimits, layerApiResponses } from "./middleware/ApiResponses.js"
export { layerAuthentication } from "./middleware/AuthenticationAdapter.js"
export { requestIdOf, withRequestIds } from "./middleware/RequestIds.js"
export { layerRequestValidation } from "./middleware/RequestValidationLayer.js"
export {
  createApiServer,
  defaultHttpConnectionLimits,
  type HttpConnectionLimits,
  type ListenOptions,
  layerNodeHttpServer
} from "./NodeServer.js"
export { openApiDocument } from "./OpenApiDocument.js"
export { clientAddressOf, decideClientAddress, type TrustedProxy } from "./websocket/ClientAddress.js"
export { checkUpgradeOrigin } from "./websocket/OriginCheck.js"
export * from "./websocket/StreamCredential.js"
export { isWebSocketUpgrade, serveDuplexStream, serveStream } from "./websocket/StreamEndpoint.js"
export { TrackedWebSocket } from "./websocket/TrackedWebSocket.js"
export * from "./websocket/WebSocketConnections.js"
export * from "./websocket/WebSocketPolicy.js"
export * from "./websocket/WebSocketSession.js"
