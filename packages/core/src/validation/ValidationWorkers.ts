import type { ValidationIssue, ValidationUnavailable } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ConfigCheck, ConfigSources } from "../config/LoadConfig.js"
import type { RoutesYamlReport } from "../routes/RouteReport.js"
import type { RouteSource, RouteSourcesReport } from "../routes/RouteSources.js"

/**
 * One validation to run: a document of routes (its report, or — `routesJson` — the JSON body the API answers a
 * valid one with), several route files together, or a config file.
 */
export type ValidationJob =
  | { readonly kind: "routes"; readonly text: string; readonly file?: string | undefined }
  | { readonly kind: "routesJson"; readonly text: string; readonly body: RoutesBody }
  | {
      readonly kind: "sources"
      readonly sources: ReadonlyArray<RouteSource>
      /** Aliases of routes outside these sources (other providers'), which `depends_on` may name. */
      readonly knownAliases?: ReadonlyArray<string> | undefined
      /** `false`: `depends_on` may name any route (the merged table checks it). */
      readonly checkReferences?: boolean | undefined
    }
  | { readonly kind: "config"; readonly text: string; readonly path: string; readonly sources: ConfigJobSources }

/** What a config check reads besides the text: the environment, flags and working directory of the server. */
export type ConfigJobSources = Omit<ConfigSources, "file">

/** Which body a `routesJson` job renders: a `RouteValidationResult`, or a `FileValidationResult` of a route file. */
export type RoutesBody = "route" | "file"

/**
 * A document of routes judged, with a valid one already rendered as the JSON body of the answer: encoding and
 * serializing thousands of routes is work too, done on the worker thread with the rest.
 */
export type RenderedRoutes =
  | { readonly _tag: "Valid"; readonly json: string }
  | { readonly _tag: "InvalidYaml" | "Invalid"; readonly issues: ReadonlyArray<ValidationIssue> }

/** The result of each kind of {@link ValidationJob}. */
export interface ValidationResults {
  readonly routes: RoutesYamlReport
  readonly routesJson: RenderedRoutes
  readonly sources: RouteSourcesReport
  readonly config: ConfigCheck
}

/** The result of a given {@link ValidationJob}. */
export type ValidationResult<J extends ValidationJob> = ValidationResults[J["kind"]]

/**
 * Where CPU-heavy validation runs. The real one (`ValidationWorkersLive.layer`) runs a small document, or one
 * refused before parsing (too big, too deep), in this thread, and anything larger on a pool of worker threads, so
 * one large document never holds the event loop; every job's result is the one inline validation gives.
 */
export class ValidationWorkers extends Context.Service<
  ValidationWorkers,
  {
    readonly run: <J extends ValidationJob>(job: J) => Effect.Effect<ValidationResult<J>, ValidationUnavailable>
    /** Jobs running on worker threads right now (for tests and metrics). */
    readonly running: Effect.Effect<number>
  }
>()("@gatehouse-edge/core/ValidationWorkers") {}
