import type {
  Route,
  RouteValidationMessage,
  ValidationIssue,
  ValidationUnavailable
} from "@gatehouse-edge/contract/domain"
import { InvalidYaml, ValidationFailed } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { RenderedRoutes, RoutesBody } from "../validation/ValidationWorkers.js"
import type { RoutesYamlReport } from "./RouteReport.js"
import type { RouteSource, RouteSourcesReport } from "./RouteSources.js"

/** Every issue of a report — the document's, then each route's — in source order. */
const issuesOf = (report: RoutesYamlReport): ReadonlyArray<ValidationIssue> =>
  report._tag === "InvalidYaml" ? report.issues : [...report.issues, ...report.routes.flatMap((r) => r.issues)]

/**
 * The one entry point of route validation: the HTTP API, the file service, the route files provider and the CLI
 * all go through it, so they see the same rules, the same reports, and the same mapping from a report to an
 * error and to stream frames. The port runs the validation (the real one is `RouteValidatorLive.layer`, which
 * validates large documents on worker threads and so may answer {@link ValidationUnavailable} when they are all
 * busy); the mappings are plain functions on the class.
 */
export class RouteValidator extends Context.Service<
  RouteValidator,
  {
    /** The report on one YAML document of routes: one route with `alias`, or a mapping `alias → route`. */
    readonly validateYaml: (
      text: string,
      options?: { readonly file?: string }
    ) => Effect.Effect<RoutesYamlReport, ValidationUnavailable>
    /**
     * The report on several documents validated together as one route table (the route files of a directory);
     * `depends_on` may also name `knownAliases`, routes the other providers (Docker labels, ...) serve, or, with
     * `checkReferences: false`, anything (the merged table checks it then).
     */
    readonly validateSources: (
      sources: ReadonlyArray<RouteSource>,
      options?: {
        readonly knownAliases?: ReadonlyArray<string> | undefined
        readonly checkReferences?: boolean | undefined
      }
    ) => Effect.Effect<RouteSourcesReport, ValidationUnavailable>
    /** The routes of a document, normalized, or the error `errorOf` gives for it. */
    readonly validate: (
      text: string
    ) => Effect.Effect<ReadonlyArray<Route>, InvalidYaml | ValidationFailed | ValidationUnavailable>
    /**
     * `validate` answered as the JSON body of a `RouteValidationResult` (`body: "route"`) or of a route file's
     * `FileValidationResult` (`"file"`), exactly as the HTTP API would render the routes: for a large document the
     * rendering is done on the worker thread too, so answering costs the event loop only the write.
     */
    readonly validateJson: (
      text: string,
      body: RoutesBody
    ) => Effect.Effect<string, InvalidYaml | ValidationFailed | ValidationUnavailable>
    /** The answer to a document on the validation stream (see `framesOf`). */
    readonly frames: (text: string) => Effect.Effect<ReadonlyArray<RouteValidationMessage>, ValidationUnavailable>
  }
>()("@gatehouse-edge/core/RouteValidator") {
  /** Every issue of a report (the document's, then each route's) in source order. */
  static readonly issuesOf = issuesOf

  /** The normalized routes of a report that are valid (all of them when `report.valid`). */
  static readonly routesOf = (report: RoutesYamlReport): ReadonlyArray<Route> =>
    report._tag === "InvalidYaml" ? [] : report.routes.flatMap((r) => (r.route === undefined ? [] : [r.route]))

  /**
   * The error a report means for an API: `InvalidYaml` (400) when the text is not a usable YAML document,
   * `ValidationFailed` (422) with every problem when it breaks the rules, `undefined` when it is valid.
   */
  static readonly errorOf = (report: RoutesYamlReport): InvalidYaml | ValidationFailed | undefined => {
    if (report._tag === "InvalidYaml") return new InvalidYaml({ issues: report.issues })
    return report.valid ? undefined : new ValidationFailed({ issues: issuesOf(report) })
  }

  /** The error a rendered document means for an API (see `errorOf`), or its JSON body when it is valid. */
  static readonly jsonOf = (rendered: RenderedRoutes): Effect.Effect<string, InvalidYaml | ValidationFailed> => {
    if (rendered._tag === "Valid") return Effect.succeed(rendered.json)
    return Effect.fail(
      rendered._tag === "InvalidYaml"
        ? new InvalidYaml({ issues: rendered.issues })
        : new ValidationFailed({ issues: rendered.issues })
    )
  }

  /**
   * The answer to one document on the validation stream: a frame per route (`valid` with the normalized route,
   * or its `errors`), then a `done` frame with the counts and any problem of the document as a whole.
   */
  static readonly framesOf = (report: RoutesYamlReport): ReadonlyArray<RouteValidationMessage> => {
    if (report._tag === "InvalidYaml") return [{ done: true, valid: 0, invalid: 0, errors: report.issues }]
    const frames = report.routes.map(
      (result): RouteValidationMessage =>
        result.issues.length === 0 && result.route !== undefined
          ? { alias: result.alias, valid: true, route: result.route }
          : { alias: result.alias, valid: false, errors: result.issues }
    )
    const valid = report.routes.filter((r) => r.issues.length === 0).length
    const done: RouteValidationMessage = {
      done: true,
      valid,
      invalid: report.routes.length - valid,
      ...(report.issues.length > 0 ? { errors: report.issues } : {})
    }
    return [...frames, done]
  }
}
