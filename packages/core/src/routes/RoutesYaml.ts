import { IssueCollector } from "../yaml/IssueCollector.js"
import { parseYaml, type YamlDocument, type YamlLimits, yamlLocator } from "../yaml/YamlDocument.js"
import { aliasProblem, normalizeAlias } from "./AliasName.js"
import { type CrossRouteOptions, checkAcrossRoutes, type RouteCandidate } from "./CrossRouteChecks.js"
import { normalizeRoute } from "./NormalizeRoute.js"
import { type RoutesYamlReport, toRouteResults } from "./RouteReport.js"

/** Options of {@link validateRoutesYaml}. */
export interface ValidateRoutesYamlOptions extends CrossRouteOptions {
  /** Set on every issue (route files). */
  readonly file?: string | undefined
  readonly limits?: Partial<YamlLimits> | undefined
}

/** A document's routes, each checked on its own but not yet against the others. */
export type AnalyzedRoutes =
  | Extract<RoutesYamlReport, { _tag: "InvalidYaml" }>
  | { readonly _tag: "Parsed"; readonly candidates: ReadonlyArray<RouteCandidate>; readonly issues: IssueCollector }

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const reportDuplicates = (
  document: YamlDocument,
  single: boolean,
  byKey: ReadonlyMap<string, RouteCandidate>
): void => {
  for (const duplicate of document.duplicateKeys) {
    const candidate = single ? byKey.get("") : byKey.get(String(duplicate.path[0]))
    if (candidate === undefined) continue
    const relative = single ? duplicate.path : duplicate.path.slice(1)
    const first = `first defined at line ${duplicate.first.line}`
    const message =
      relative.length === 0
        ? `duplicate alias \`${candidate.alias}\` (${first})`
        : `duplicate key \`${String(relative.at(-1))}\` (${first})`
    candidate.issues.addAt(relative, message, duplicate.position)
  }
}

const singleRoute = (value: Readonly<Record<string, unknown>>, issues: IssueCollector): RouteCandidate => {
  const raw = value.alias
  const alias = typeof raw === "string" || typeof raw === "number" ? normalizeAlias(String(raw)) : ""
  const routeIssues = new IssueCollector(issues.locate, [], [alias], [])
  const problem = alias === "" && typeof raw !== "string" ? undefined : aliasProblem(alias) // bad types: the schema says so
  if (problem !== undefined) routeIssues.add(["alias"], problem)
  return { alias, route: normalizeRoute(alias, value, routeIssues), issues: routeIssues }
}

const mappedRoute = (key: string, input: unknown, issues: IssueCollector): RouteCandidate => {
  const alias = normalizeAlias(key)
  const routeIssues = new IssueCollector(issues.locate, [], [alias], [key])
  const problem = aliasProblem(alias)
  if (problem !== undefined) routeIssues.add([], problem, "key")
  if (isRecord(input) && Object.hasOwn(input, "alias")) {
    const inner = input.alias
    if ((typeof inner === "string" || typeof inner === "number") && normalizeAlias(String(inner)) !== alias) {
      routeIssues.add(["alias"], `\`alias: ${String(inner)}\` does not match the route's key \`${key}\``)
    }
  }
  return { alias, route: normalizeRoute(alias, input, routeIssues), issues: routeIssues }
}

/**
 * Parses a document of routes — one route (a mapping with `alias`) or a mapping `alias → route` — and checks
 * each route on its own. {@link validateRoutesYaml} adds the checks across routes; validating several files
 * together runs those across all of them.
 */
export const analyzeRoutesYaml = (text: string, options: ValidateRoutesYamlOptions = {}): AnalyzedRoutes => {
  const parsed = parseYaml(text, {
    ...(options.file === undefined ? {} : { file: options.file }),
    ...(options.limits === undefined ? {} : { limits: options.limits })
  })
  if (parsed._tag === "Invalid") return { _tag: "InvalidYaml", valid: false, issues: parsed.issues }
  const { document } = parsed
  const issues = new IssueCollector(yamlLocator(document, options.file))
  const value = document.value
  if (value === null) return { _tag: "Parsed", candidates: [], issues }
  if (!isRecord(value)) {
    issues.add([], "expected a route (a mapping with `alias`) or a mapping of alias → route")
    return { _tag: "Parsed", candidates: [], issues }
  }
  // A route *named* `alias` (`alias: {port: 80}`) makes a route map, not a single route.
  const single = Object.hasOwn(value, "alias") && !isRecord(value.alias)
  const byKey = new Map<string, RouteCandidate>()
  if (single) byKey.set("", singleRoute(value, issues))
  else for (const [key, input] of Object.entries(value)) byKey.set(key, mappedRoute(key, input, issues))
  reportDuplicates(document, single, byKey)
  return { _tag: "Parsed", candidates: [...byKey.values()], issues }
}

/**
 * Validates a YAML document of routes (SPEC §2): one route with `alias`, or a mapping `alias → route`.
 * Pure and synchronous. Returns every problem, each with a path that starts with the route's alias and with
 * line/column (and `file` when given); `InvalidYaml` for text that is not a usable YAML document.
 *
 * ```ts
 * const report = validateRoutesYaml("app:\n  port: 8080\n")
 * if (report.valid) report.routes[0]?.route // { alias: "app", scheme: "http", port: { listening: 0, target: 8080 }, ... }
 * ```
 */
export const validateRoutesYaml = (text: string, options: ValidateRoutesYamlOptions = {}): RoutesYamlReport => {
  const analyzed = analyzeRoutesYaml(text, options)
  if (analyzed._tag === "InvalidYaml") return analyzed
  checkAcrossRoutes(analyzed.candidates, options)
  return finishReport(analyzed)
}

/** The report of an analyzed document whose cross-route checks have run. */
export const finishReport = (analyzed: Extract<AnalyzedRoutes, { _tag: "Parsed" }>): RoutesYamlReport => {
  const routes = toRouteResults(analyzed.candidates)
  const issues = analyzed.issues.issues
  return { _tag: "Parsed", valid: issues.length === 0 && routes.every((r) => r.issues.length === 0), routes, issues }
}
