/**
 * `@gatehouse-edge/core/services` — every service port of the core, and nothing that implements one: this module
 * loads no Node API and no driver (SQLite, YAML, file watching, SSH, Docker), so transports and clients can
 * depend on the ports alone. The real layers are in the package's main entry (`HealthLive.layer`, ...).
 */

export { CurrentPrincipal } from "@gatehouse-edge/contract/domain"
export * from "./auth/ApiKeys.js"
export * from "./auth/Authentication.js"
export * from "./auth/Login.js"
export * from "./auth/Sessions.js"
export * from "./authrequests/AuthRequests.js"
export * from "./certs/Certificates.js"
export * from "./certs/dns/DnsProvider.js"
export * from "./config/ConfigSource.js"
export * from "./docker/Docker.js"
export * from "./events/Events.js"
export * from "./files/Files.js"
export * from "./health/Health.js"
export * from "./health/Serving.js"
export * from "./hypervisor/GuestLocator.js"
export * from "./hypervisor/Hypervisor.js"
export * from "./hypervisor/NodeShell.js"
export * from "./routes/RouteList.js"
export * from "./routes/RouteProviders.js"
export * from "./routes/Routes.js"
export * from "./routes/RouteValidator.js"
export * from "./store/StoreTrouble.js"
export * from "./uptime/Uptime.js"
export * from "./validation/ValidationWorkers.js"
