/**
 * Route files checked offline: the validator alone, as plain functions (no service, no worker thread, no store).
 * Also the package entry `@gatehouse-edge/core/routes`, which loads `yaml`, effect's Schema and the contract's
 * domain only: `gatehouse validate` checks route files through it without loading the rest of core.
 */

export type { CrossRouteOptions } from "./CrossRouteChecks.js"
export type { RouteResult, RoutesYamlReport } from "./RouteReport.js"
export {
  type RouteSource,
  type RouteSourcesReport,
  type ValidateRouteSourcesOptions,
  validateRouteSources
} from "./RouteSources.js"
export { type ValidateRoutesYamlOptions, validateRoutesYaml } from "./RoutesYaml.js"
