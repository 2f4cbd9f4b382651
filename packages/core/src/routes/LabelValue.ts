import { parseYaml } from "../yaml/YamlDocument.js"

// A label value is short; these limits keep an inline-YAML alias bomb in a label as harmless as in a file.
const labelLimits = { maxBytes: 64 * 1024, maxNodes: 10_000, maxDepth: 16, maxAliasCount: 100 }

/** A label value read as YAML: the value, or why it could not be read. */
export type LabelValue = { readonly value: unknown } | { readonly problem: string }

const isQuoted = (text: string) =>
  text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'")))

/**
 * Reads a Docker label value. Inline YAML collections (`{path: /health}`, `[a, b]`) and quoted strings are
 * parsed as YAML, and so are plain scalars that YAML reads as numbers, booleans or null (`8080`, `true`).
 * Any other text is taken verbatim: YAML would cut `a # b` at the comment or read `Note: x` as a mapping,
 * which is never what a label author means.
 */
export const readLabelValue = (raw: string): LabelValue => {
  const text = raw.trim()
  const flow = text.startsWith("{") || text.startsWith("[")
  if (!flow && !isQuoted(text) && !/^[-+.\w~]+$/.test(text)) return { value: text }
  const parsed = parseYaml(text, { limits: labelLimits })
  if (parsed._tag === "Invalid") {
    if (!flow && !isQuoted(text)) return { value: text }
    const issue = parsed.issues[0]
    const column = issue?.column === undefined ? "" : ` (at column ${issue.column})`
    return { problem: `invalid inline YAML: ${issue?.message ?? "unreadable"}${column}` }
  }
  const { value, duplicateKeys } = parsed.document
  if (duplicateKeys.length > 0)
    return { problem: `duplicate key \`${String(duplicateKeys[0]!.path.at(-1))}\` in inline YAML` }
  if (flow || isQuoted(text)) return { value }
  return typeof value === "string" || (typeof value === "object" && value !== null) ? { value: text } : { value }
}
