/**
 * YAML with positions: parse safely (limits against alias bombs and oversize input), map paths back to line and
 * column, and validate with Effect schemas reporting every problem. Used for route files and `gatehouse.yml`.
 */
export * from "./DecodeReporting.js"
export * from "./DidYouMean.js"
export * from "./GoDuration.js"
export * from "./IssueCollector.js"
export { type NestingScan, scanNesting } from "./NestingScan.js"
export * from "./SchemaProblems.js"
export * from "./SecretKeys.js"
export * from "./ValidateYaml.js"
export * from "./YamlDocument.js"
export type { PositionFinder, YamlPosition } from "./YamlPositions.js"
