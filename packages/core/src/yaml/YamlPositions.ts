import {
  isAlias,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  type Pair,
  Scalar,
  visit,
  type YAMLMap
} from "yaml"
import type { IssueAnchor, IssuePath } from "./IssueCollector.js"
import { isMergeKey, keyString } from "./YamlAudit.js"

/** A 1-based line and column in a YAML source. */
export interface YamlPosition {
  readonly line: number
  readonly column: number
}

/** Finds the position of the node at a path; see {@link makePositionFinder}. */
export type PositionFinder = (path: IssuePath, anchor?: IssueAnchor) => YamlPosition | undefined

// Mappings with more entries than this get a key index on first lookup: the top level of a route file can
// hold thousands of routes, and a document full of issues must not make each lookup a linear scan.
const indexThreshold = 16

const startOf = (node: unknown): number | undefined => (isNode(node) ? node.range?.[0] : undefined)

// An empty value (`key:` and nothing) still gets a zero-width node; its offset is not a useful place to point.
const isEmptyNode = (node: unknown): boolean =>
  isNode(node) && node.range !== undefined && node.range?.[0] === node.range?.[1]

/** Where a path leads in a document: the node there (aliases not yet followed) and the key of its entry. */
interface PathEnd {
  readonly node: unknown
  readonly lastKey: unknown
  /** Whether every part of the path exists; else `node` is the deepest part that does. */
  readonly complete: boolean
}

/** Follows a path of the plain value into the parsed document; see {@link makePathWalker}. */
export interface PathWalker {
  readonly walk: (path: IssuePath) => PathEnd
  /** The node an alias refers to (the node itself when it is not an alias). */
  readonly resolve: (node: unknown) => unknown
}

/**
 * Maps a path of the plain value (e.g. `["app", "port"]`) to the node where that value is written, following
 * aliases and merge keys (`<<: *base`) as the plain value does.
 */
export const makePathWalker = (contents: Node | null): PathWalker => {
  const indexes = new WeakMap<YAMLMap, Map<string, Pair>>()
  let anchors: Map<string, Array<Node>> | undefined

  // The latest anchor of that name before the alias, as YAML defines it.
  const resolve = (node: unknown): unknown => {
    for (let hops = 0; isAlias(node) && hops < 64; hops++) {
      if (anchors === undefined) {
        const found = new Map<string, Array<Node>>()
        if (contents !== null) {
          visit(contents, {
            Node: (_, n) => {
              if (n.anchor) {
                const named = found.get(n.anchor)
                if (named === undefined) found.set(n.anchor, [n])
                else named.push(n)
              }
            }
          })
        }
        anchors = found
      }
      const at = startOf(node) ?? 0
      const alias = node
      node = anchors.get(alias.source)?.findLast((candidate) => (startOf(candidate) ?? 0) < at)
    }
    return node
  }

  const ownPair = (map: YAMLMap, key: string): Pair | undefined => {
    if (map.items.length > indexThreshold) {
      let index = indexes.get(map)
      if (index === undefined) {
        index = new Map()
        // Later duplicates win, as they do in the plain value.
        for (const pair of map.items) {
          const name = keyString(pair.key)
          if (name !== undefined && !isMergeKey(pair.key)) index.set(name, pair)
        }
        indexes.set(map, index)
      }
      return index.get(key)
    }
    return map.items.findLast((pair) => !isMergeKey(pair.key) && keyString(pair.key) === key)
  }

  // Own keys win over merged ones; among merge sources the first one wins (YAML merge key semantics).
  const findPair = (map: YAMLMap, key: string, depth: number): Pair | undefined => {
    const own = ownPair(map, key)
    if (own !== undefined || depth > 16) return own
    for (const pair of map.items) {
      if (!isMergeKey(pair.key)) continue
      const source = resolve(pair.value)
      for (const item of isSeq(source) ? source.items : [source]) {
        const merged = resolve(item)
        const found = isMap(merged) ? findPair(merged, key, depth + 1) : undefined
        if (found !== undefined) return found
      }
    }
    return undefined
  }

  const walk = (path: IssuePath): PathEnd => {
    let node: unknown = contents
    let lastKey: unknown
    for (const segment of path) {
      const container = resolve(node)
      if (isMap(container)) {
        const pair = findPair(container, String(segment), 0)
        if (pair === undefined) return { node, lastKey, complete: false }
        lastKey = pair.key
        node = pair.value
      } else if (isSeq(container) && Number.isInteger(Number(segment)) && container.items[Number(segment)]) {
        lastKey = undefined
        node = container.items[Number(segment)]
      } else {
        return { node, lastKey, complete: false }
      }
    }
    return { node, lastKey, complete: true }
  }

  return { walk, resolve }
}

/**
 * Builds the function that maps a path of the plain value (e.g. `["app", "port"]`) back to the source:
 * `anchor: "value"` points at the value, `"key"` at the key of the last map entry (used for unknown and
 * duplicate keys). It follows aliases and merge keys (`<<: *base`) into the text where a value is written.
 * A path that does not exist (a missing key) points at the deepest part of it that does.
 * Line and column are computed from the line counter only here, i.e. only for values an issue mentions.
 */
export const makePositionFinder =
  (walker: PathWalker, lineCounter: LineCounter): PositionFinder =>
  (path, anchor = "value") => {
    const { node, lastKey, complete } = walker.walk(path)
    const keyOrNode = lastKey ?? node
    const target =
      !complete || (anchor === "key" && lastKey !== undefined) || node === null || isEmptyNode(node) ? keyOrNode : node
    const offset = startOf(isPair(target) ? target.key : target)
    if (offset === undefined) return undefined
    const { line, col } = lineCounter.linePos(offset)
    return { line, column: col }
  }

/**
 * Whether the value at a path is written as a plain scalar (`5000`, `${PORT}`), not quoted nor a block scalar:
 * text put into a plain scalar reads as YAML reads it, where quoted text stays a string.
 */
export const makePlainScalarTest =
  (walker: PathWalker) =>
  (path: IssuePath): boolean => {
    const { node, complete } = walker.walk(path)
    const target = walker.resolve(node)
    return complete && isScalar(target) && target.type === Scalar.PLAIN
  }
