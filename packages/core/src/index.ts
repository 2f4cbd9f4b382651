/**
 * @gatehouse-edge/core — the Gatehouse domain, the service ports and their real implementations, free of any
 * transport code. Ports come without implementations from `@gatehouse-edge/core/services`; each real layer is
 * exported from its own module namespace here (`RoutesLive.layer`, `HealthLive.layer`, `FilesLive.layer`, ...).
 */

export * from "./auth/ApiKeyFormat.js"
export * from "./auth/ApiKeyRepository.js"
export * as AuthenticationLive from "./auth/AuthenticationLive.js"
export * as ConfigSourceLive from "./config/ConfigSourceLive.js"
export * as ConfigWatcher from "./config/ConfigWatcher.js"
export * from "./config/index.js"
export * from "./domain/index.js"
export * as EventBus from "./events/EventBus.js"
export * from "./events/EventRepository.js"
export * as FilesLive from "./files/FilesLive.js"
export type { CheckResult } from "./health/CheckResult.js"
export * as HealthLive from "./health/HealthLive.js"
export { checkRoute, type Monitor, monitorFor } from "./health/Monitor.js"
export * as FileRoutes from "./routes/FileRoutes.js"
export { type RouteLabelsOptions, type RouteLabelsReport, validateRouteLabels } from "./routes/RouteLabels.js"
export * as RouteListLive from "./routes/RouteListLive.js"
export type { RouteResult, RoutesYamlReport } from "./routes/RouteReport.js"
export { type RouteSource, type RouteSourcesReport, validateRouteSources } from "./routes/RouteSources.js"
export * as RoutesLive from "./routes/RoutesLive.js"
export { type ValidateRoutesYamlOptions, validateRoutesYaml } from "./routes/RoutesYaml.js"
export * as RouteValidatorLive from "./routes/RouteValidatorLive.js"
export * from "./services.js"
export * as SqliteClient from "./store/SqliteClient.js"
export * from "./store/StoreErrors.js"
export type { StoreError, StoreOptions } from "./store/StoreLive.js"
export * as StoreLive from "./store/StoreLive.js"
export * as ValidationWorkersLive from "./validation/ValidationWorkersLive.js"
export * from "./yaml/index.js"
