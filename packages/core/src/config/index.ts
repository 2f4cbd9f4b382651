/**
 * Server configuration: the `gatehouse.yml` schema, environment overrides, the loader and its typed sections. Also
 * the package entry `@gatehouse-edge/core/config`, which loads none of the services (no store, no watcher): the
 * CLI reads a server's address from it without loading the rest of core.
 */

// The config's duration format, for a flag that takes one.
export { parseGoDuration } from "../yaml/GoDuration.js"
export * from "./ConfigFile.js"
export * from "./ConfigSections.js"
export * from "./ConfigValues.js"
export { envOverrides, envVariables } from "./EnvOverrides.js"
export * from "./GatehouseConfig.js"
export * from "./LoadConfig.js"
export * from "./ReadSecret.js"
export * from "./ReadTextFile.js"
export * from "./SecretSource.js"
