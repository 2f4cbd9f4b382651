import type { IssuePath, Locator } from "../yaml/IssueCollector.js"
import type { Override } from "./EnvOverrides.js"

// Whether the file itself has a value at `path` (a section or a key).
const fileHas = (file: unknown, path: IssuePath): boolean => {
  let node = file
  for (const key of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return false
    node = (node as Record<string | number, unknown>)[key]
  }
  return true
}

/**
 * Locates issues where their value came from: an issue about a key a variable or flag set points at that variable
 * or flag, not at the file; so does one in a section the file does not have, which a variable or flag made
 * (`GATEHOUSE_AUTH_OIDC_CLIENT_SECRET` alone makes `auth.oidc`, whose `issuer` is then missing): the file has no
 * line to show for it. Every other issue is located in the file by `base`.
 */
export const overrideLocator =
  (base: Locator, file: unknown, overrides: ReadonlyArray<Override>): Locator =>
  (at, anchor) => {
    const own = overrides.findLast((o) => o.path.every((key, i) => at[i] === key))
    if (own !== undefined) return { label: own.source }
    // The outermost section on the issue's path the file lacks, and the overrides that made it.
    const depth = at.findIndex((_, i) => !fileHas(file, at.slice(0, i + 1)))
    if (depth === -1) return base(at, anchor)
    const section = at.slice(0, depth + 1)
    const makers = overrides.filter((o) => section.every((key, i) => o.path[i] === key))
    return makers.length === 0 ? base(at, anchor) : { label: [...new Set(makers.map((o) => o.source))].join(", ") }
  }
