import type { Route, ValidationIssue } from "@gatehouse-edge/contract/domain"
import type { RouteCandidate } from "./CrossRouteChecks.js"

/** The verdict on one route: the normalized route when it is valid, else its issues. */
export interface RouteResult {
  readonly alias: string
  /** Present exactly when `issues` is empty. */
  readonly route?: Route
  readonly issues: ReadonlyArray<ValidationIssue>
}

/**
 * The verdict on one YAML document of routes. `InvalidYaml`: the text is not a usable YAML document (syntax
 * errors, over a limit) — an API answers 400. `Parsed`: one result per route plus `issues` about the document
 * as a whole (e.g. it is a list, not a mapping); `valid` is false when any of them has an issue — 422.
 */
export type RoutesYamlReport =
  | { readonly _tag: "InvalidYaml"; readonly valid: false; readonly issues: ReadonlyArray<ValidationIssue> }
  | {
      readonly _tag: "Parsed"
      readonly valid: boolean
      readonly routes: ReadonlyArray<RouteResult>
      readonly issues: ReadonlyArray<ValidationIssue>
    }

/** Every issue of a report — the document's, then each route's — in source order. */
export const reportIssues = (report: RoutesYamlReport): ReadonlyArray<ValidationIssue> =>
  report._tag === "InvalidYaml" ? report.issues : [...report.issues, ...report.routes.flatMap((r) => r.issues)]

/** The normalized routes of a report that are valid (all of them when `report.valid`). */
export const validRoutes = (report: RoutesYamlReport): ReadonlyArray<Route> =>
  report._tag === "InvalidYaml" ? [] : report.routes.flatMap((r) => (r.route === undefined ? [] : [r.route]))

/** Turns checked candidates into results: a route is kept only when it has no issue. */
export const toRouteResults = (candidates: ReadonlyArray<RouteCandidate>): ReadonlyArray<RouteResult> =>
  candidates.map(({ alias, route, issues }) =>
    route !== undefined && issues.issues.length === 0 ? { alias, route, issues: [] } : { alias, issues: issues.issues }
  )
