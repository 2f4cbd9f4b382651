/**
 * @gatehouse-edge/transport-http — the HTTP + WebSocket transport of the Gatehouse API: handlers for the contract in
 * `@gatehouse-edge/transport-http/api`, authentication middleware, shared error bodies and the OpenAPI document.
 */
export * from "./api.js"
export { EventsHandlers } from "./handlers/EventsHandlers.js"
export { FilesHandlers } from "./handlers/FilesHandlers.js"
export { HealthHandlers, healthFrames } from "./handlers/HealthHandlers.js"
export { RoutesHandlers, toRouteEntry, validationFrames } from "./handlers/RoutesHandlers.js"
export { ServerDescription, SystemHandlers } from "./handlers/SystemHandlers.js"
export { openApiDocument } from "./OpenApiDocument.js"
export { layerApiKeyAuthorization } from "./server/ApiKeyAuthorization.js"
export { errorResponse, type HttpLimits, layerApiResponses } from "./server/ApiResponses.js"
export { type ListenOptions, layerApiRoutes, layerHttpApp, layerNodeHttpServer } from "./server/HttpApp.js"
export { layerRequestValidation } from "./server/RequestValidationLayer.js"
export { TrackedWebSocket } from "./server/TrackedWebSocket.js"
export * from "./server/WebSocketSession.js"
