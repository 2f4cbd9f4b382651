/**
 * Gatehouse domain: the schemas and errors shared by the core, every transport and the client.
 * This module imports nothing but `effect`, so clients can load it without any server code.
 */
export * from "./ApiError.js"
export * from "./CommonErrors.js"
export * from "./ErrorBody.js"
export * from "./ErrorCode.js"
export * from "./Event.js"
export * from "./FileErrors.js"
export * from "./Files.js"
export * from "./Health.js"
export * from "./Healthcheck.js"
export * from "./HypervisorNodeConfig.js"
export * from "./Idlewatcher.js"
export type * from "./Principal.js"
export * from "./Route.js"
export * from "./RouteEntry.js"
export * from "./RouteErrors.js"
export * from "./RouteExtras.js"
export * from "./RouteValidation.js"
export * from "./Uptime.js"
export * from "./ValidationIssue.js"
export * from "./Version.js"
