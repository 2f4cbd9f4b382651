import { isMap, isPair, isSeq, parseDocument } from "yaml"

/** A small deterministic PRNG (xorshift32), so a failing document can be reproduced from its seed. */
export const prng = (seed: number) => {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 0x1_0000_0000
  }
}

type Tree =
  | { readonly t: "scalar" }
  | { readonly t: "map"; readonly items: ReadonlyArray<readonly [string, Tree]> }
  | { readonly t: "seq"; readonly items: ReadonlyArray<Tree> }

/**
 * Random YAML documents in every style the nesting scan must read: block mappings and sequences (compact
 * `- - x`, `- k: v`, a sequence at its key's column), flow collections (with `key: value` pairs in sequences and
 * line breaks inside), block scalars, quoted and plain scalars and comments full of brackets, dashes and colons;
 * with `anchors`, also anchors, aliases and merge keys.
 */
export const randomYaml = (random: () => number, options: { readonly anchors?: boolean } = {}) => {
  const int = (n: number) => Math.floor(random() * n)
  const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]!
  const anchorNames: Array<string> = []
  const mapAnchors: Array<string> = []

  const tree = (depth: number, max: number): Tree => {
    if (depth >= max || random() < 0.25) return { t: "scalar" }
    const n = 1 + int(3)
    if (random() < 0.5) {
      const keys = ["k", "key", "a b", "x-y", "url", "__proto__", "1", "~", "true"]
      return {
        t: "map",
        items: Array.from({ length: n }, (_, i) => [`${pick(keys)}${i}`, tree(depth + 1, max)] as const)
      }
    }
    return { t: "seq", items: Array.from({ length: n }, () => tree(depth + 1, max)) }
  }

  const plain = () =>
    pick(["word", "a[b]", "x{y} z", "http://h:80/p", "a-b", "1", "true", "~", "it's", 'say "hi"', "q?", "1.5"])
  const quoted = () => pick(["'[{'", "'it''s ] }'", '"a \\" [ {"', '"x: y, [z"', "'- - -'", '"# no"', "'<<'"])
  const scalar = (inFlow: boolean) => {
    if (options.anchors === true && anchorNames.length > 0 && random() < 0.15) return `*${pick(anchorNames)}`
    return random() < 0.5 ? (inFlow ? pick(["word", "a-b", "1", "x y", "null"]) : plain()) : quoted()
  }
  // Anchors on collections; the name is usable (as an alias) once the collection is written.
  const anchored = (isMap: boolean, render: () => string): string => {
    if (options.anchors !== true || random() > 0.2) return render()
    const name = `a${anchorNames.length}`
    const text = `&${name} ${render()}`
    anchorNames.push(name)
    if (isMap) mapAnchors.push(name)
    return text
  }
  const mergeKey = () =>
    options.anchors === true && mapAnchors.length > 0 && random() < 0.3
      ? random() < 0.7
        ? `<<: *${pick(mapAnchors)}`
        : `<<: [*${pick(mapAnchors)}, *${pick(mapAnchors)}]`
      : undefined

  const flow = (node: Tree, indent: number): string => {
    if (node.t === "scalar") return scalar(true)
    const sep = random() < 0.2 ? `,\n${" ".repeat(indent + 1)}` : ", "
    if (node.t === "map") {
      return anchored(true, () => {
        const merge = mergeKey()
        const entries = node.items.map(([k, v]) => `${k}: ${flow(v, indent)}`)
        return `{${[...(merge === undefined ? [] : [merge]), ...entries].join(sep)}}`
      })
    }
    return anchored(false, () => {
      const entries = node.items.map((v) =>
        v.t === "map" && v.items.length === 1 && random() < 0.5
          ? `${v.items[0]![0]}: ${flow(v.items[0]![1], indent)}`
          : flow(v, indent)
      )
      return `[${entries.join(sep)}]`
    })
  }

  const comment = () => (random() < 0.2 ? pick([" # [[[", " # {a: [", " #- - -"]) : "")
  const blockScalar = (indent: number) => {
    const lines = Array.from(
      { length: 1 + int(3) },
      () => " ".repeat(indent + 2 + int(2)) + pick(["[[[", "- - x", "{a: b", "k: v", "'", '"', "# c"])
    )
    return `${pick(["|", ">", "|-", ">+"])}${comment()}\n${lines.join("\n")}`
  }

  const block = (node: Tree, indent: number): Array<string> => {
    const pad = " ".repeat(indent)
    if (node.t === "scalar") return [pad + scalar(false)]
    if (random() < 0.2) return [pad + flow(node, indent)]
    if (node.t === "map") {
      const out: Array<string> = []
      const merge = mergeKey()
      if (merge !== undefined) out.push(pad + merge)
      for (const [k, v] of node.items) {
        if (v.t === "scalar") {
          out.push(random() < 0.15 ? `${pad}${k}: ${blockScalar(indent)}` : `${pad}${k}: ${scalar(false)}${comment()}`)
        } else if (random() < 0.25) out.push(`${pad}${k}: ${flow(v, indent)}${comment()}`)
        else {
          out.push(`${pad}${k}:${comment()}`)
          if (random() < 0.2) out.push(`${pad}  # [[[ a comment`)
          out.push(...block(v, v.t === "seq" && random() < 0.5 ? indent : indent + 2))
        }
      }
      return out
    }
    const out: Array<string> = []
    for (const v of node.items) {
      if (v.t === "scalar") out.push(`${pad}- ${random() < 0.1 ? blockScalar(indent) : scalar(false)}`)
      else if (random() < 0.5) {
        const child = block(v, indent + 2)
        out.push(`${pad}- ${child[0]!.slice(indent + 2)}`, ...child.slice(1))
      } else out.push(`${pad}-`, ...block(v, indent + 2))
    }
    return out
  }

  return {
    /** A document nesting at most `maxDepth` levels. */
    document: (maxDepth: number) => {
      anchorNames.length = 0
      mapAnchors.length = 0
      return `${block(tree(0, maxDepth), 0).join("\n")}\n`
    },
    /** `text` with a few random structural characters inserted or characters deleted: mostly malformed. */
    mutate: (text: string) => {
      let out = text
      for (let k = 0; k < 1 + int(4); k++) {
        const at = int(out.length + 1)
        const insert = pick(["[", "]", "{", "}", ":", ": ", "- ", "? ", "#", " #", "'", '"', "|", ">", "\n", "\n  "])
        out = random() < 0.7 ? out.slice(0, at) + insert + out.slice(at) : out.slice(0, at) + out.slice(at + 1 + int(3))
      }
      return out
    }
  }
}

/** How deep the collections yaml builds for `text` nest (pairs of a flow sequence are mappings), and its errors. */
export const builtDepth = (text: string): { readonly depth: number; readonly errors: number } => {
  const document = parseDocument(text, { uniqueKeys: false, merge: true, logLevel: "silent" })
  let deepest = 0
  const stack: Array<readonly [unknown, number]> = [[document.contents, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (!isMap(node) && !isSeq(node)) continue
    deepest = Math.max(deepest, depth + 1)
    for (const item of node.items as ReadonlyArray<unknown>) {
      if (isPair(item)) stack.push([item.key, depth + 1], [item.value, depth + 1])
      else stack.push([item, depth + 1])
    }
  }
  return { depth: deepest, errors: document.errors.length }
}
