import * as Schema from "effect/Schema"

/**
 * One problem found while validating input: where it is (`path`, and for YAML the 1-based `line`/`column`),
 * what is wrong (`message`), and for multi-source input which `file` or Docker `label` it came from, or for a
 * conflict between route providers, which `provider` offered the route.
 */
export const ValidationIssue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Int])),
  message: Schema.String,
  line: Schema.optionalKey(Schema.Int),
  column: Schema.optionalKey(Schema.Int),
  file: Schema.optionalKey(Schema.String),
  label: Schema.optionalKey(Schema.String),
  provider: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ValidationIssue" })
export type ValidationIssue = typeof ValidationIssue.Type

/** Renders an issue as `file:line:column: path: message` (parts omitted when unknown), as compilers do. */
export const formatIssue = (issue: ValidationIssue): string => {
  const where = [issue.file ?? issue.label ?? issue.provider, issue.line, issue.column]
    .filter((p) => p !== undefined)
    .join(":")
  const path = issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""
  return `${where === "" ? "" : `${where}: `}${path}${issue.message}`
}
