import { assert } from "@effect/vitest"
import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import { Route } from "@gatehouse-edge/contract/domain"
import { Schema } from "effect"
import { reportIssues } from "../../src/routes/RouteReport.js"
import { type ValidateRoutesYamlOptions, validateRoutesYaml } from "../../src/routes/RoutesYaml.js"

const isRoute = Schema.is(Route)

/** The normalized routes of a document that must be valid; each must satisfy the domain `Route` schema. */
export const validRoutesOf = (text: string, options: ValidateRoutesYamlOptions = {}): ReadonlyArray<Route> => {
  const report = validateRoutesYaml(text, options)
  if (!report.valid) assert.fail(`expected valid routes, got ${JSON.stringify(reportIssues(report), null, 1)}`)
  if (report._tag !== "Parsed") return assert.fail("unreachable")
  return report.routes.map((r) => {
    assert.isTrue(isRoute(r.route), `not a Route: ${JSON.stringify(r.route)}`)
    return r.route!
  })
}

/** The one route of a document that must be valid. */
export const validRoute = (text: string): Route => {
  const routes = validRoutesOf(text)
  assert.strictEqual(routes.length, 1)
  return routes[0]!
}

/** Every issue of a document (which must parse), in source order. */
export const issuesOf = (text: string, options: ValidateRoutesYamlOptions = {}): ReadonlyArray<ValidationIssue> => {
  const report = validateRoutesYaml(text, options)
  assert.strictEqual(report._tag, "Parsed", JSON.stringify(reportIssues(report)))
  assert.isFalse(report.valid, "expected the document to be invalid")
  return reportIssues(report)
}

/** `path: message` lines, compact enough to compare whole lists. */
export const described = (issues: ReadonlyArray<ValidationIssue>): ReadonlyArray<string> =>
  issues.map((i) => `${i.path.join(".")}: ${i.message}`)

/** The messages of the issues at one dotted path. */
export const messagesAt = (text: string, path: string): ReadonlyArray<string> =>
  issuesOf(text)
    .filter((i) => i.path.join(".") === path)
    .map((i) => i.message)
