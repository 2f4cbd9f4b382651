import { Effect } from "effect"
import { InvalidYaml, ValidationFailed } from "../domain/CommonErrors.js"
import type { Route } from "../domain/Route.js"
import { reportIssues, validRoutes } from "./RouteReport.js"
import { type ValidateRoutesYamlOptions, validateRoutesYaml } from "./RoutesYaml.js"

/**
 * Validates a YAML document of routes and returns them normalized; fails with `InvalidYaml` (400) when the
 * text is not a usable YAML document, or `ValidationFailed` (422) with every problem.
 */
export const validateRoutes = Effect.fn("validateRoutes")(function* (
  text: string,
  options: ValidateRoutesYamlOptions = {}
): Effect.fn.Return<ReadonlyArray<Route>, InvalidYaml | ValidationFailed> {
  const report = validateRoutesYaml(text, options)
  if (report._tag === "InvalidYaml") return yield* new InvalidYaml({ issues: report.issues })
  if (!report.valid) return yield* new ValidationFailed({ issues: reportIssues(report) })
  return validRoutes(report)
})
