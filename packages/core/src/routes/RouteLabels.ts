import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { didYouMean } from "../yaml/DidYouMean.js"
import { IssueCollector, type Locator } from "../yaml/IssueCollector.js"
import { aliasProblem, normalizeAlias } from "./AliasName.js"
import { type CrossRouteOptions, checkAcrossRoutes, type RouteCandidate } from "./CrossRouteChecks.js"
import { LabelTree, overlay } from "./LabelTree.js"
import { readLabelValue } from "./LabelValue.js"
import { normalizeRoute } from "./NormalizeRoute.js"
import { type RouteResult, toRouteResults } from "./RouteReport.js"

/** Options of {@link validateRouteLabels}. */
export interface RouteLabelsOptions extends CrossRouteOptions {
  /** The container's name: its alias when no label names one (a leading `/`, as Docker reports it, is dropped). */
  readonly container: string
}

/** The verdict on one container's labels. */
export interface RouteLabelsReport {
  /** `proxy.exclude = true`: the routes are still validated, but the container is not to be proxied. */
  readonly excluded: boolean
  readonly valid: boolean
  readonly routes: ReadonlyArray<RouteResult>
  /** Problems with container-level labels (`proxy.aliases`, `proxy.exclude`, unknown `proxy.*` labels). */
  readonly issues: ReadonlyArray<ValidationIssue>
}

const prefix = "proxy."
const containerLabels = ["aliases", "exclude"]

interface Collected {
  readonly wildcard: LabelTree
  readonly trees: Map<string, LabelTree>
  /** Problems of labels that belong to one alias, reported with that route. */
  readonly pending: Map<string, Array<ValidationIssue>>
  /** Every alias a label names, in label order (even when its labels had problems). */
  readonly named: Set<string>
}

// `proxy.app.example.com.port`: an alias listed in `proxy.aliases` may contain dots, so match those first.
const splitAlias = (rest: string, listed: ReadonlyArray<string>): { alias: string; field: Array<string> } => {
  const dotted = listed.filter((a) => a.includes(".") && rest.toLowerCase().startsWith(`${a}.`))
  const longest = dotted.sort((a, b) => b.length - a.length)[0]
  if (longest !== undefined) return { alias: longest, field: rest.slice(longest.length + 1).split(".") }
  const [first, ...field] = rest.split(".")
  return { alias: first === "*" ? "*" : normalizeAlias(first!), field }
}

const collectFieldLabels = (
  labels: Readonly<Record<string, string>>,
  keys: ReadonlyArray<string>,
  listed: ReadonlyArray<string>,
  issues: Array<ValidationIssue>
): Collected => {
  const collected: Collected = { wildcard: new LabelTree(), trees: new Map(), pending: new Map(), named: new Set() }
  for (const label of keys) {
    const rest = label.slice(prefix.length)
    if (containerLabels.includes(rest)) continue
    const { alias, field } = splitAlias(rest, listed)
    if (field.length === 0) {
      const hint = didYouMean(rest, containerLabels)
      issues.push({
        path: [],
        message: `unknown label \`${label}\`${hint}; route labels look like proxy.<alias>.<field>`,
        label
      })
      continue
    }
    if (alias !== "*") collected.named.add(alias)
    const report = (message: string) => {
      const issue: ValidationIssue = { path: [alias, ...field], message, label }
      if (alias === "*") issues.push(issue)
      else collected.pending.set(alias, [...(collected.pending.get(alias) ?? []), issue])
    }
    if (field.some((segment) => segment === "")) {
      report("empty segment in the label name (`..` or a trailing `.`)")
      continue
    }
    let tree = alias === "*" ? collected.wildcard : collected.trees.get(alias)
    if (tree === undefined) collected.trees.set(alias, (tree = new LabelTree()))
    const read = readLabelValue(labels[label] ?? "")
    if ("problem" in read) {
      tree.remember(field, label)
      report(read.problem)
      continue
    }
    const conflict = tree.set(field, read.value, label)
    if (conflict !== undefined) report(conflict)
  }
  return collected
}

const readAliases = (raw: string): Array<string> => [
  ...new Set(
    raw
      .split(",")
      .map(normalizeAlias)
      .filter((alias) => alias !== "")
  )
]

/**
 * Validates the routes a Docker container declares with labels: `proxy.<alias>.<field>[.<sub>...] = value`
 * (dots nest; values may be inline YAML such as `{path: /health}` or `[a, b]`), `proxy.*.<field>` for every
 * alias (an alias's own label wins), `proxy.aliases = a,b` (default: the container name, when no label names
 * an alias), `proxy.exclude = true`. Labels outside `proxy.` are ignored, and a container without any has no
 * routes. Every issue names its label. `depends_on` targets must exist only when `knownAliases` is given.
 */
export const validateRouteLabels = (
  labels: Readonly<Record<string, string>>,
  options: RouteLabelsOptions
): RouteLabelsReport => {
  const keys = Object.keys(labels)
    .filter((key) => key.startsWith(prefix))
    .sort()
  const issues: Array<ValidationIssue> = []
  if (keys.length === 0) return { excluded: false, valid: true, routes: [], issues }

  const aliasesLabel = labels[`${prefix}aliases`]
  const listed = aliasesLabel === undefined ? [] : readAliases(aliasesLabel)
  let excluded = false
  const excludeLabel = labels[`${prefix}exclude`]
  if (excludeLabel !== undefined) {
    const read = readLabelValue(excludeLabel)
    if ("value" in read && typeof read.value === "boolean") excluded = read.value
    else issues.push({ path: [], message: "`proxy.exclude` must be true or false", label: `${prefix}exclude` })
  }

  const collected = collectFieldLabels(labels, keys, listed, issues)
  const { wildcard, trees, pending } = collected
  const named = [...new Set([...listed, ...collected.named])]
  const fromContainer = named.length === 0
  const aliases = fromContainer ? [normalizeAlias(options.container.replace(/^\//, ""))] : named

  const candidates = aliases.map((alias): RouteCandidate => {
    const own = trees.get(alias)
    // The label that set the value, or the deepest mapping holding it, wins; an alias's own labels on a tie.
    const locate: Locator = (path) => {
      const relative = path.slice(1)
      const mine = own?.setterOf(relative)
      const shared = wildcard.setterOf(relative)
      const setter = mine !== undefined && (shared === undefined || mine.depth >= shared.depth) ? mine : shared
      const label = setter?.label ?? own?.labelFor(relative) ?? wildcard.labelFor(relative)
      return label === undefined ? {} : { label }
    }
    const routeIssues = new IssueCollector(locate, [...(pending.get(alias) ?? [])], [alias], [alias])
    const problem = aliasProblem(alias)
    if (problem !== undefined && fromContainer) {
      const message = `${problem}; the container name is the default alias, set \`proxy.aliases\``
      routeIssues.issues.push({ path: [alias], message })
    } else if (problem !== undefined && own === undefined) {
      routeIssues.issues.push({ path: [alias], message: problem, label: `${prefix}aliases` })
    } else if (problem !== undefined) routeIssues.add([], problem)
    const input = overlay(wildcard.value, own?.value ?? {})
    return { alias, route: normalizeRoute(alias, input, routeIssues), issues: routeIssues }
  })

  checkAcrossRoutes(candidates, {
    knownAliases: options.knownAliases,
    checkReferences: options.checkReferences ?? options.knownAliases !== undefined
  })
  const routes = toRouteResults(candidates)
  return { excluded, valid: issues.length === 0 && routes.every((r) => r.issues.length === 0), routes, issues }
}
