import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { IssueCollector } from "../yaml/IssueCollector.js"
import { checkAcrossRoutes, type RouteCandidate } from "./CrossRouteChecks.js"
import { attributeIssue, locatorOfProvided } from "./ProvidedRouteLocation.js"
import type { ProviderState } from "./RouteProviders.js"
import type { RouteRecord } from "./Routes.js"

/** The merged table and the routes it had to leave out. */
export interface MergedTable {
  readonly records: ReadonlyArray<RouteRecord>
  /** Conflicts across providers; the route each one names was left out of the table. */
  readonly issues: ReadonlyArray<ValidationIssue>
}

/**
 * Merges the states of the providers, in the order given, into one table and runs the rules that involve several
 * routes across all of them (duplicate aliases, overlapping listeners, `depends_on` targets, load-balancer links).
 * Within a provider these already hold (each validates its own routes together), so only conflicts across
 * providers — or with a source that kept its last good routes — are found here; the later route loses and is
 * reported, the earlier one stays.
 */
export const mergeProviderStates = (states: ReadonlyArray<ProviderState>): MergedTable => {
  const candidates = states.flatMap((state) =>
    state.routes.map((provided) => ({
      provided,
      candidate: {
        alias: provided.route.alias,
        route: provided.route,
        issues: new IssueCollector(locatorOfProvided(provided), [], [provided.route.alias])
      } satisfies RouteCandidate
    }))
  )
  checkAcrossRoutes(candidates.map((c) => c.candidate))
  const records: Array<RouteRecord> = []
  const issues: Array<ValidationIssue> = []
  for (const { provided, candidate } of candidates) {
    if (candidate.issues.issues.length > 0)
      issues.push(...candidate.issues.issues.map((i) => attributeIssue(provided, i)))
    else
      records.push({
        route: provided.route,
        provider: provided.source,
        excluded: provided.excluded,
        ...(provided.container === undefined ? {} : { container: provided.container })
      })
  }
  return { records, issues }
}
