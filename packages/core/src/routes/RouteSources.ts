import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import type { YamlLimits } from "../yaml/YamlDocument.js"
import { type CrossRouteOptions, checkAcrossRoutes } from "./CrossRouteChecks.js"
import { type RoutesYamlReport, reportIssues } from "./RouteReport.js"
import { analyzeRoutesYaml, finishReport } from "./RoutesYaml.js"

/** One YAML document of routes and the name it is reported under (a route file's name). */
export interface RouteSource {
  readonly file: string
  readonly text: string
}

/** The verdict on several route documents validated together. */
export interface RouteSourcesReport {
  readonly valid: boolean
  /** One report per source, in the order given. */
  readonly files: ReadonlyArray<{ readonly file: string; readonly report: RoutesYamlReport }>
  /** Every issue of every file, each carrying its `file`. */
  readonly issues: ReadonlyArray<ValidationIssue>
}

/** Options of {@link validateRouteSources}. */
export interface ValidateRouteSourcesOptions extends CrossRouteOptions {
  readonly limits?: Partial<YamlLimits> | undefined
}

/**
 * Validates several route documents as one route table: each is checked as {@link validateRoutesYaml} does,
 * and the checks across routes (duplicate aliases, port conflicts, references) run across all of them, in
 * the order given — an alias defined in two files is reported in the later one.
 */
export const validateRouteSources = (
  sources: ReadonlyArray<RouteSource>,
  options: ValidateRouteSourcesOptions = {}
): RouteSourcesReport => {
  const analyzed = sources.map((source) => ({
    file: source.file,
    analysis: analyzeRoutesYaml(source.text, { file: source.file, limits: options.limits })
  }))
  checkAcrossRoutes(
    analyzed.flatMap(({ analysis }) => (analysis._tag === "Parsed" ? analysis.candidates : [])),
    options
  )
  const files = analyzed.map(({ file, analysis }) => ({
    file,
    report: analysis._tag === "Parsed" ? finishReport(analysis) : analysis
  }))
  const issues = files.flatMap(({ report }) => reportIssues(report))
  return { valid: files.every(({ report }) => report.valid), files, issues }
}
