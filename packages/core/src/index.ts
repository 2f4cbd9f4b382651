/**
 * @gatehouse-edge/core — the Gatehouse domain, the service ports and their real implementations, free of any
 * transport code. Ports come without implementations from `@gatehouse-edge/core/services`; each real layer is
 * exported from its own module namespace here (`RoutesLive.layer`, `HealthLive.layer`, `FilesLive.layer`, ...).
 */

// Straight from the contract, not through ./domain/index.js: a module shared by two entries lands in a chunk, and
// the bundler drops an `export *` of an external package from a chunk (the domain entry came out empty).
export * from "@gatehouse-edge/contract/domain"
export * from "./auth/ApiKeyFormat.js"
export * from "./auth/ApiKeyRepository.js"
export * as ApiKeysLive from "./auth/ApiKeysLive.js"
export * as AuthenticationLive from "./auth/AuthenticationLive.js"
export * as LoginLive from "./auth/LoginLive.js"
export { OidcLoginRepository } from "./auth/OidcLoginRepository.js"
export { hashPassword, isSupportedHash, verifyPassword } from "./auth/Passwords.js"
export { ServerSecrets } from "./auth/ServerSecrets.js"
export { SessionRepository } from "./auth/SessionRepository.js"
export * as SessionsLive from "./auth/SessionsLive.js"
export { generateUnusedApiKey } from "./auth/UnusedApiKey.js"
export { authIdProblem } from "./authrequests/AuthRequestInput.js"
export * as AuthRequestsLive from "./authrequests/AuthRequestsLive.js"
export { AuthRequestWaiterCount } from "./authrequests/AuthRequestsLive.js"
export { type IpPrefix, parsePrefix, prefixContains } from "./authrequests/IpPrefix.js"
export { AcmeCaUnreadable } from "./certs/AcmeCertificates.js"
export type { CertificatePair } from "./certs/CertificatePair.js"
export * as CertificatesLive from "./certs/CertificatesLive.js"
export * as Rfc2136Provider from "./certs/dns/Rfc2136Provider.js"
export * as ConfigSourceLive from "./config/ConfigSourceLive.js"
export * as ConfigWatcher from "./config/ConfigWatcher.js"
export * from "./config/index.js"
export * as DockerLive from "./docker/DockerLive.js"
export * as DockerRouteProvider from "./docker/DockerRouteProvider.js"
export * as EventBus from "./events/EventBus.js"
export * from "./events/EventRepository.js"
export * as FilesLive from "./files/FilesLive.js"
export type { CheckResult } from "./health/CheckResult.js"
export * as HealthLive from "./health/HealthLive.js"
export { checkRoute, type Monitor, monitorFor } from "./health/Monitor.js"
export * as HypervisorLive from "./hypervisor/HypervisorLive.js"
export * as NodeShellLive from "./hypervisor/NodeShellLive.js"
export * as FileRoutes from "./routes/FileRoutes.js"
export { RoutesDirUnusable } from "./routes/FileRoutes.js"
export * from "./routes/index.js"
export { type RouteLabelsOptions, type RouteLabelsReport, validateRouteLabels } from "./routes/RouteLabels.js"
export * as RouteListLive from "./routes/RouteListLive.js"
export * as RoutesLive from "./routes/RoutesLive.js"
export * as RouteValidatorLive from "./routes/RouteValidatorLive.js"
export * from "./services.js"
export * as SqliteClient from "./store/SqliteClient.js"
export * from "./store/StoreErrors.js"
export type { StoreError, StoreOptions } from "./store/StoreLive.js"
export * as StoreLive from "./store/StoreLive.js"
export * from "./store/StoreLock.js"
export {
  type Bucket,
  type BucketCounts,
  bucketStartOf,
  bucketWidthMs,
  emptyCounts,
  pointsPerPeriod,
  uptimePeriods
} from "./uptime/UptimeBuckets.js"
export * as UptimeLive from "./uptime/UptimeLive.js"
export { UptimeWatcherCount } from "./uptime/UptimeLive.js"
export * from "./uptime/UptimeRepository.js"
export * as ValidationWorkersLive from "./validation/ValidationWorkersLive.js"
export * from "./yaml/index.js"
