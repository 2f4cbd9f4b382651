/**
 * Hostile YAML documents that nest far deeper than any limit, each about 1 MiB (the default request body limit),
 * with the 1-based line and column where the 65th level opens: where a 64-level limit is passed.
 */
export interface DeepDocument {
  readonly name: string
  readonly text: string
  readonly crossedAt: { readonly line: number; readonly column: number }
}

/** One MiB, the default HTTP body limit (`http.max_body`) and WebSocket message limit. */
export const MiB = 1024 * 1024

const repeatTo = (unit: string, bytes: number, prefix = "") =>
  prefix + unit.repeat(Math.floor((bytes - prefix.length) / unit.length))

// `k:` lines, each indented one more space than the last: a mapping in a mapping in a mapping…
const indentationLadder = (bytes: number): string => {
  const lines: Array<string> = []
  let size = 0
  for (let indent = 0; size + indent + 3 <= bytes; indent++) {
    lines.push(`${" ".repeat(indent)}k:`)
    size += indent + 3
  }
  return `${lines.join("\n")}\n`
}

/** The deep documents of the hardening issue: flow, block and mixed nesting, all refused at level 65. */
export const deepDocuments = (bytes = MiB): ReadonlyArray<DeepDocument> => [
  { name: "flow sequences [[[[…", text: "[".repeat(bytes), crossedAt: { line: 1, column: 65 } },
  { name: "flow mappings {b: {b: …", text: repeatTo("{b: ", bytes), crossedAt: { line: 1, column: 64 * 4 + 1 } },
  { name: "block sequences - - - …", text: repeatTo("- ", bytes), crossedAt: { line: 1, column: 64 * 2 + 1 } },
  { name: "block mappings by indentation", text: indentationLadder(bytes), crossedAt: { line: 65, column: 65 } },
  {
    // 32 block sequences, then `{a: [` pairs of flow collections: level 65 is the `{` of the 17th pair.
    name: "mixed block and flow",
    text: repeatTo("{a: [", bytes, "- ".repeat(32)),
    crossedAt: { line: 1, column: 64 + 16 * 5 + 1 }
  }
]
