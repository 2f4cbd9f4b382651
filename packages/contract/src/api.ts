/**
 * The Gatehouse HTTP contract, importable without any server code: `@gatehouse-edge/contract/api` (re-exported
 * as `@gatehouse-edge/transport-http/api`). Clients derive their types from it; the server implements it; the
 * OpenAPI document is generated from it.
 */
export * from "./api/AccessApi.js"
export * from "./api/BodyLimit.js"
export * from "./api/CertsApi.js"
export * from "./api/DockerApi.js"
export * from "./api/EventsApi.js"
export * from "./api/FilesApi.js"
export * from "./api/GatehouseApi.js"
export * from "./api/HealthApi.js"
export * from "./api/HypervisorApi.js"
export * from "./api/LoginApi.js"
export * from "./api/MetricsApi.js"
export * from "./api/Parameters.js"
export * from "./api/RequestValidation.js"
export * from "./api/RoutesApi.js"
export * from "./api/Scopes.js"
export * from "./api/Security.js"
export * from "./api/StreamEndpoints.js"
export * from "./api/SystemApi.js"
