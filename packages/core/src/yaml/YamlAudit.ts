import { type Alias, isAlias, isMap, isScalar, isSeq, type Node, type Pair, Scalar } from "yaml"
import type { IssuePath } from "./IssueCollector.js"

/** The budget {@link auditYaml} enforces on a document's shape. */
export interface AuditLimits {
  /** Most nodes the document may have once every alias is expanded. */
  readonly maxNodes: number
  /**
   * Most characters of scalar text (string values, and the source of other scalars) the document may hold once
   * every alias is expanded. `maxNodes` counts a long string as one node: without this, one anchored 100 KB string
   * reused by a few thousand aliases passes every other limit and renders to hundreds of megabytes.
   */
  readonly maxExpandedChars: number
  /** Deepest nesting of collections. */
  readonly maxDepth: number
}

/** A key that appears twice in one mapping: where the repeat is and where the first one was (source offsets). */
export interface DuplicateKeyOffsets {
  readonly path: IssuePath
  readonly offset: number
  readonly firstOffset: number
}

/** What {@link auditYaml} found: the first fatal problem (if any), every duplicate key, and what each alias means. */
export interface AuditResult {
  readonly problem:
    | { readonly offset: number; readonly message: string; readonly tooDeep?: boolean | undefined }
    | undefined
  readonly duplicateKeys: ReadonlyArray<DuplicateKeyOffsets>
  /** The node each alias refers to: the last one with its anchor before it in the document, as yaml resolves it. */
  readonly aliasTargets: ReadonlyMap<Alias, Node>
}

/**
 * Whether a map key is YAML's merge key: a plain `<<` (yaml represents it as a symbol when merge keys are
 * enabled); a quoted `"<<"` is an ordinary key, as in yaml's own `toJS`.
 */
export const isMergeKey = (key: unknown): boolean =>
  isScalar(key) &&
  (key.type === undefined || key.type === Scalar.PLAIN) &&
  (key.value === "<<" || (typeof key.value === "symbol" && key.value.description === "<<"))

/** The string a scalar key becomes in the plain value, as yaml's `toJS` does it; `undefined` for other keys. */
export const keyString = (key: unknown): string | undefined => {
  if (!isScalar(key)) return undefined
  if (key.value === null || key.value === undefined) return ""
  return typeof key.value === "object" ? undefined : String(key.value)
}

/**
 * The text a scalar contributes: a string's length, or for other scalars (numbers, booleans, null) the length of
 * their source. Neither is ever longer than the scalar's source (escapes, quotes, indentation and folding only
 * shrink it), so a document without aliases never counts more characters than it has.
 */
const scalarChars = (node: Scalar): number =>
  typeof node.value === "string" ? node.value.length : (node.range?.[1] ?? 0) - (node.range?.[0] ?? 0)

const offsetOf = (node: unknown): number => (node as Node | null)?.range?.[0] ?? 0

class AuditStop {
  constructor(
    readonly offset: number,
    readonly message: string,
    readonly tooDeep = false
  ) {}
}

/**
 * One pass over the parsed tree, before anything turns it into plain values. It computes how many nodes and how
 * much scalar text the document has once aliases are expanded — without expanding them — so a "billion laughs"
 * document, or one long string reused by thousands of aliases, is refused in time linear in its size; it refuses
 * aliases that point at their own ancestor (they would make a cycle) or at no anchor, merge keys whose value is not
 * a mapping, and nesting deeper than the limit; and it lists duplicate keys (yaml's own check is quadratic in the
 * size of a mapping and reports no path, so it is off).
 */
export const auditYaml = (root: Node | null, limits: AuditLimits): AuditResult => {
  // An anchor is registered where it starts (an alias means the last node with its name before it, in document
  // order); its size is known once the node is complete, so an alias to a node still being read (its own
  // ancestor) has none yet: it would make the plain value cyclic.
  const anchors = new Map<string, Node>()
  const sizes = new Map<Node, number>()
  const aliasTargets = new Map<Alias, Node>()
  const duplicateKeys: Array<DuplicateKeyOffsets> = []
  const path: Array<string | number> = []
  // Scalar text of everything visited so far, aliases counted expanded: a running total, so an anchored node's
  // expanded text is the total when it ends minus the total when it started, computed once per anchor.
  let expandedChars = 0
  const charsAtStart = new Map<Node, number>()
  const expandedCharsOf = new Map<Node, number>()

  const checkSize = (size: number, node: unknown): number => {
    if (size > limits.maxNodes) {
      throw new AuditStop(
        offsetOf(node),
        `document expands to more than ${limits.maxNodes} nodes through aliases; refusing it (possible "billion laughs" attack)`
      )
    }
    return size
  }

  const addChars = (chars: number, node: unknown): void => {
    expandedChars += chars
    if (expandedChars > limits.maxExpandedChars) {
      throw new AuditStop(
        offsetOf(node),
        `document expands to more than ${limits.maxExpandedChars} characters of text through aliases; refusing it (a long value reused by many aliases)`
      )
    }
  }

  // The alias's name is never quoted: an unquoted value that starts with `*` (a password) is read as an alias, and
  // these messages reach events, logs and API answers.
  const resolveAlias = (node: Node): Node => {
    if (!isAlias(node)) return node
    const target = anchors.get(node.source)
    if (target === undefined) {
      throw new AuditStop(
        offsetOf(node),
        "an alias (`*name`) refers to no anchor defined before it: a value that starts with `*` must be quoted"
      )
    }
    if (!sizes.has(target)) {
      throw new AuditStop(offsetOf(node), "an alias refers to a node that contains it (a cycle)")
    }
    aliasTargets.set(node, target)
    return target
  }

  const checkMergeSource = (value: unknown): void => {
    const source = isAlias(value) ? resolveAlias(value) : value
    const sources = isSeq(source) ? source.items.map((item) => (isAlias(item) ? resolveAlias(item) : item)) : [source]
    if (!sources.every((s) => isMap(s))) {
      throw new AuditStop(offsetOf(value), "merge key `<<` needs a mapping, an alias of one, or a list of them")
    }
  }

  const visitPairs = (items: ReadonlyArray<Pair<unknown, unknown>>, depth: number): number => {
    let size = 1
    const seen = new Map<string, number>()
    for (const pair of items) {
      const key = keyString(pair.key)
      if (isMergeKey(pair.key)) checkMergeSource(pair.value)
      else if (key !== undefined) {
        const first = seen.get(key)
        if (first === undefined) seen.set(key, offsetOf(pair.key))
        else duplicateKeys.push({ path: [...path, key], offset: offsetOf(pair.key), firstOffset: first })
      }
      size += visit(pair.key, depth)
      path.push(key ?? "?")
      size += visit(pair.value, depth)
      path.pop()
      checkSize(size, pair.value)
    }
    return size
  }

  const visit = (node: unknown, depth: number): number => {
    if (node === null || node === undefined) return 0
    if (isScalar(node)) {
      start(node)
      addChars(scalarChars(node), node)
      return register(node, 1)
    }
    if (isAlias(node)) {
      const target = resolveAlias(node)
      addChars(expandedCharsOf.get(target)!, node)
      return sizes.get(target)!
    }
    if (depth >= limits.maxDepth) {
      throw new AuditStop(offsetOf(node), `document nests deeper than ${limits.maxDepth} levels`, true)
    }
    if (!isMap(node) && !isSeq(node)) return 1
    start(node)
    let size = 1
    if (isMap(node)) size = visitPairs(node.items, depth + 1)
    else {
      for (let index = 0; index < node.items.length; index++) {
        path.push(index)
        size = checkSize(size + visit(node.items[index], depth + 1), node.items[index])
        path.pop()
      }
    }
    return register(node, size)
  }

  const start = (node: Node): void => {
    if (node.anchor !== undefined && node.anchor !== null) {
      anchors.set(node.anchor, node)
      charsAtStart.set(node, expandedChars)
    }
  }

  const register = (node: Node, size: number): number => {
    if (node.anchor !== undefined && node.anchor !== null) {
      sizes.set(node, size)
      expandedCharsOf.set(node, expandedChars - charsAtStart.get(node)!)
    }
    return checkSize(size, node)
  }

  try {
    visit(root, 0)
    return { problem: undefined, duplicateKeys, aliasTargets }
  } catch (error) {
    if (error instanceof AuditStop) {
      const problem = { offset: error.offset, message: error.message, tooDeep: error.tooDeep }
      return { problem, duplicateKeys, aliasTargets }
    }
    throw error
  }
}
