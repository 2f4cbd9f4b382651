import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import type * as Schema from "effect/Schema"
import { decodeReporting } from "./DecodeReporting.js"
import { IssueCollector } from "./IssueCollector.js"
import { type ParseYamlOptions, parseYaml, type YamlDocument, yamlLocator } from "./YamlDocument.js"

/**
 * The outcome of {@link validateYaml}: not YAML at all (`InvalidYaml`, a 400 for an API), YAML that breaks the
 * schema (`Invalid`, a 422), or the decoded value.
 */
export type YamlValidation<A> =
  | { readonly _tag: "InvalidYaml"; readonly issues: ReadonlyArray<ValidationIssue> }
  | { readonly _tag: "Invalid"; readonly issues: ReadonlyArray<ValidationIssue> }
  | { readonly _tag: "Valid"; readonly value: A }

/** Options of {@link validateYaml}. */
export interface ValidateYamlOptions extends ParseYamlOptions {
  /** The value an empty document stands for (a config file with only comments is usually `{}`). Default `null`. */
  readonly emptyDocument?: unknown
}

/**
 * Reports each key written twice in one mapping, at the repeat, naming where the first one is.
 * Callers with their own wording for some paths (a duplicate route alias) can filter before calling.
 */
export const reportDuplicateKeys = (document: YamlDocument, issues: IssueCollector): void => {
  for (const duplicate of document.duplicateKeys) {
    const key = String(duplicate.path.at(-1))
    issues.add(duplicate.path, `duplicate key \`${key}\` (first defined at line ${duplicate.first.line})`, "key")
  }
}

/**
 * Parses YAML text and decodes it with an Effect schema, returning every problem with its path, line and
 * column: syntax errors, duplicate keys, unknown keys (with a "did you mean" hint), missing keys, wrong types
 * and failed checks. This is the one-call form for a config file such as `gatehouse.yml`:
 *
 * ```ts
 * const result = validateYaml(GatehouseConfig, text, { file: "gatehouse.yml", emptyDocument: {} })
 * if (result._tag !== "Valid") console.error(result.issues.map(formatIssue).join("\n"))
 * ```
 *
 * For rules a schema cannot express (cross-field checks, defaults that depend on other fields), use the parts:
 * {@link parseYaml}, {@link yamlLocator}, an {@link IssueCollector}, `decodeReporting` / `decodeFields`.
 */
export const validateYaml = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  text: string,
  options: ValidateYamlOptions = {}
): YamlValidation<S["Type"]> => {
  const parsed = parseYaml(text, options)
  if (parsed._tag === "Invalid") return { _tag: "InvalidYaml", issues: parsed.issues }
  const { document } = parsed
  const issues = new IssueCollector(yamlLocator(document, options.file))
  reportDuplicateKeys(document, issues)
  const input = document.value === null && "emptyDocument" in options ? options.emptyDocument : document.value
  const value = decodeReporting(schema, input, issues)
  return value === undefined || issues.issues.length > 0
    ? { _tag: "Invalid", issues: issues.issues }
    : { _tag: "Valid", value }
}
