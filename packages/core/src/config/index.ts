/** Server configuration: the `gatehouse.yml` schema, environment overrides and the loader. */
export * from "./ConfigFile.js"
export * from "./ConfigValues.js"
export { envOverrides, envVariables } from "./EnvOverrides.js"
export * from "./GatehouseConfig.js"
export * from "./LoadConfig.js"
