import type { IssuePath } from "../yaml/IssueCollector.js"

type Tree = Record<string, unknown>

const isTree = (value: unknown): value is Tree => typeof value === "object" && value !== null && !Array.isArray(value)

// Null-prototype nodes and defineProperty: a label such as `proxy.app.__proto__.x` must stay a plain key.
const emptyTree = (): Tree => Object.create(null) as Tree
const put = (tree: Tree, key: string, value: unknown) =>
  Object.defineProperty(tree, key, { value, enumerable: true, writable: true, configurable: true })

const startsWith = (path: IssuePath, prefix: IssuePath) =>
  prefix.every((segment, i) => path[i] !== undefined && String(path[i]) === String(segment))

/** A copy of `base` with `top` laid over it: nested mappings merge, any other value of `top` replaces. */
export const overlay = (base: Tree, top: Tree): Tree => {
  const result = emptyTree()
  for (const [key, value] of Object.entries(base)) put(result, key, isTree(value) ? overlay(value, emptyTree()) : value)
  for (const [key, value] of Object.entries(top)) {
    const under = result[key]
    put(
      result,
      key,
      isTree(value) && isTree(under) ? overlay(under, value) : isTree(value) ? overlay(value, emptyTree()) : value
    )
  }
  return result
}

/**
 * The values Docker labels set for one alias, nested by the dotted path of each label
 * (`proxy.app.healthcheck.path` → `{healthcheck: {path}}`), remembering which label set what so an issue
 * about a value can name its label.
 */
export class LabelTree {
  readonly value: Tree = emptyTree()
  private readonly origins: Array<{ readonly path: ReadonlyArray<string>; readonly label: string }> = []

  /** Sets `value` at `path`; returns why it could not (another label already set that value), else undefined. */
  set(path: ReadonlyArray<string>, value: unknown, label: string): string | undefined {
    let node = this.value
    for (let i = 0; i < path.length - 1; i++) {
      const child = node[path[i]!]
      if (child === undefined) {
        const created = emptyTree()
        put(node, path[i]!, created)
        node = created
      } else if (isTree(child)) node = child
      else return this.conflict(path.slice(0, i + 1))
    }
    const last = path.at(-1)!
    const existing = node[last]
    if (existing === undefined) put(node, last, isTree(value) ? overlay(value, emptyTree()) : value)
    else if (isTree(existing) && isTree(value)) {
      const clash = Object.keys(value).find((key) => Object.hasOwn(existing, key))
      if (clash !== undefined) return this.conflict([...path, clash])
      for (const [key, inner] of Object.entries(value)) put(existing, key, inner)
    } else return this.conflict(path)
    this.origins.push({ path, label })
    return undefined
  }

  /** Records that `label` is about `path` although it set nothing (its value was unreadable). */
  remember(path: ReadonlyArray<string>, label: string): void {
    this.origins.push({ path, label })
  }

  private conflict(path: ReadonlyArray<string>): string {
    return `sets \`${path.join(".")}\`, which label \`${this.labelFor(path) ?? "?"}\` already sets`
  }

  /** The label that set the value at `path`, or the deepest mapping containing it, and the depth it set. */
  setterOf(path: IssuePath): { readonly label: string; readonly depth: number } | undefined {
    const setter = this.origins
      .filter((o) => startsWith(path, o.path))
      .reduce<(typeof this.origins)[number] | undefined>(
        (best, o) => (best && best.path.length > o.path.length ? best : o),
        undefined
      )
    return setter === undefined ? undefined : { label: setter.label, depth: setter.path.length }
  }

  /**
   * The label behind the value at `path`: the one that set it or a mapping containing it; for a value no
   * label set (a missing key), a label that set something under it or next to it, or else any label here.
   */
  labelFor(path: IssuePath): string | undefined {
    const setter = this.setterOf(path)
    if (setter !== undefined) return setter.label
    for (let length = path.length; length >= 0; length--) {
      const prefix = path.slice(0, length)
      const below = this.origins.find((o) => startsWith(o.path, prefix))
      if (below !== undefined) return below.label
    }
    return undefined
  }
}
