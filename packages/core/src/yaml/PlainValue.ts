import { type Alias, isAlias, isMap, isPair, isScalar, isSeq, type Node, type Pair, type YAMLMap } from "yaml"
import { isMergeKey } from "./YamlAudit.js"

/**
 * Builds the plain value of an audited document the way yaml's `Document.toJS()` does (merge keys applied,
 * aliases sharing the value of their anchor, keys stringified, `__proto__` kept as an own key), in time linear in
 * the size of the value.
 *
 * yaml's own `toJS` finds the node of every alias by scanning the list of all anchors and aliases of the document
 * (`Alias.resolve`), so a document of n aliases costs n²: a 64 KiB document of 16,000 aliases took 5 s, and 1 MiB
 * did not finish in two minutes. The audit already resolved every alias, in one pass, to the same node yaml would
 * find (the last one with that anchor before the alias in document order); this uses its answer.
 *
 * The one departure: a key that is a collection (`[a, b]: 1`, never valid in Gatehouse files) is named by the
 * JSON of its value rather than by yaml's flow rendering of it.
 */

/** yaml's `maxAliasCount` check failed: an anchor referenced too often, counting the aliases inside it. */
export class AliasCountExceeded {
  constructor(readonly limit: number) {}
}

// yaml's bookkeeping per anchored node (`ctx.anchors`): its latest value, how often it was referenced, and the
// alias fan-out inside it (computed at the first reference).
interface AnchorData {
  value: unknown
  count: number
  aliasCount: number
}

const define = (target: object, key: PropertyKey, value: unknown) =>
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })

/** The plain value of `root`; aliases must all be in `aliasTargets` (the audit's). */
export const plainValue = (
  root: Node | null,
  aliasTargets: ReadonlyMap<Alias, Node>,
  maxAliasCount: number
): unknown => {
  const anchors = new Map<Node, AnchorData>()

  const target = (alias: Alias): Node => aliasTargets.get(alias)!

  // yaml's `getAliasCount`: the largest (references × fan-out) of the aliases inside a node.
  const aliasCountOf = (node: unknown): number => {
    if (isAlias(node)) {
      const data = anchors.get(target(node))
      return data === undefined ? 0 : data.count * data.aliasCount
    }
    if (isMap(node) || isSeq(node)) {
      let count = 0
      for (const item of node.items as ReadonlyArray<unknown>) count = Math.max(count, aliasCountOf(item))
      return count
    }
    if (isPair(node)) return Math.max(aliasCountOf(node.key), aliasCountOf(node.value))
    return 1
  }

  // yaml's `Alias.resolve` with its `maxAliasCount` accounting.
  const resolve = (alias: Alias): Node => {
    const node = target(alias)
    let data = anchors.get(node)
    if (data === undefined) {
      build(node)
      data = anchors.get(node)!
    }
    if (maxAliasCount >= 0) {
      data.count += 1
      if (data.aliasCount === 0) data.aliasCount = aliasCountOf(node)
      if (data.count * data.aliasCount > maxAliasCount) throw new AliasCountExceeded(maxAliasCount)
    }
    return node
  }

  const build = (node: unknown): unknown => {
    if (isAlias(node)) return anchors.get(resolve(node))!.value
    if (isPair(node)) {
      const map: Record<string, unknown> = {}
      addPair(map, node)
      return map
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) return node
    const data: AnchorData | undefined =
      node.anchor === undefined || node.anchor === null ? undefined : { value: undefined, count: 1, aliasCount: 0 }
    if (data !== undefined) anchors.set(node, data)
    let value: unknown
    if (isScalar(node)) value = node.value
    else if (isSeq(node)) value = node.items.map(build)
    else {
      const map: Record<string, unknown> = {}
      for (const pair of node.items) addPair(map, pair)
      value = map
    }
    if (data !== undefined) data.value = value
    return value
  }

  // yaml's `stringifyKey`, but for collection keys (see above).
  const keyOf = (jsKey: unknown): string => {
    if (jsKey === null) return ""
    return typeof jsKey === "object" ? JSON.stringify(jsKey) : String(jsKey)
  }

  const addPair = (map: Record<string, unknown>, pair: Pair<unknown, unknown>): void => {
    if (isMergeKey(pair.key)) {
      merge(pair.value, (key, value) => {
        if (!Object.hasOwn(map, String(key))) define(map, String(key), value)
      })
      return
    }
    const key = keyOf(build(pair.key))
    const value = build(pair.value)
    // `in`, not own: an inherited name (`__proto__`, `constructor`) becomes an own key, never the prototype.
    if (key in map) define(map, key, value)
    else map[key] = value
  }

  // A merge source is rebuilt as a `Map` of its entries (its own merges applied), as yaml's `mergeValue` does;
  // the caller adds the keys it does not have yet.
  const merge = (value: unknown, add: (key: unknown, value: unknown) => void): void => {
    const source = isAlias(value) ? resolve(value) : value
    const sources: ReadonlyArray<unknown> = isSeq(source) ? source.items : [source]
    for (const item of sources) {
      const map = (isAlias(item) ? resolve(item) : item) as YAMLMap<unknown, unknown>
      for (const [key, entry] of entriesOf(map)) add(key, entry)
    }
  }

  const entriesOf = (map: YAMLMap<unknown, unknown>): Map<unknown, unknown> => {
    const entries = new Map<unknown, unknown>()
    for (const pair of map.items) {
      if (isMergeKey(pair.key)) {
        merge(pair.value, (key, value) => {
          if (!entries.has(key)) entries.set(key, value)
        })
      } else entries.set(build(pair.key), build(pair.value))
    }
    return entries
  }

  return build(root)
}
