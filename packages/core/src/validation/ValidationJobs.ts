import { FileValidationResult, RouteValidationResult } from "@gatehouse-edge/contract/domain"
import * as Schema from "effect/Schema"
import { checkConfigEdit } from "../config/LoadConfig.js"
import { reportIssues, validRoutes } from "../routes/RouteReport.js"
import { validateRouteSources } from "../routes/RouteSources.js"
import { validateRoutesYaml } from "../routes/RoutesYaml.js"
import type { RenderedRoutes, RoutesBody, ValidationJob, ValidationResult } from "./ValidationWorkers.js"

const encodeRouteResult = Schema.encodeSync(RouteValidationResult)
const encodeFileResult = Schema.encodeSync(FileValidationResult)

/**
 * A document of routes judged, a valid one rendered as the HTTP API renders a typed body (the schema's encoding,
 * then `JSON.stringify`), so the answer is byte for byte the one the API would build from the routes.
 */
export const renderRoutes = (text: string, body: RoutesBody): RenderedRoutes => {
  const report = validateRoutesYaml(text)
  if (report._tag === "InvalidYaml") return { _tag: "InvalidYaml", issues: report.issues }
  if (!report.valid) return { _tag: "Invalid", issues: reportIssues(report) }
  const routes = validRoutes(report)
  const encoded =
    body === "route"
      ? encodeRouteResult({ valid: true, routes })
      : encodeFileResult({ valid: true, type: "routes", routes })
  return { _tag: "Valid", json: JSON.stringify(encoded) }
}

/** Runs one validation job in this thread: the same code inline and in a worker, so results are the same. */
export const runValidationJob = <J extends ValidationJob>(job: J): ValidationResult<J> => {
  switch (job.kind) {
    case "routes":
      return validateRoutesYaml(job.text, job.file === undefined ? {} : { file: job.file }) as ValidationResult<J>
    case "routesJson":
      return renderRoutes(job.text, job.body) as ValidationResult<J>
    case "sources":
      return validateRouteSources(job.sources, {
        knownAliases: job.knownAliases,
        checkReferences: job.checkReferences
      }) as ValidationResult<J>
    case "config":
      return checkConfigEdit({ ...job.sources, file: { path: job.path, text: job.text } }) as ValidationResult<J>
  }
}

/** How many characters a job validates: what decides where it runs and how long it may take. */
export const jobSize = (job: ValidationJob): number =>
  job.kind === "sources" ? job.sources.reduce((n, source) => n + source.text.length, 0) : job.text.length
