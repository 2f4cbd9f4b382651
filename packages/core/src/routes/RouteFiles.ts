import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import type { Route, ValidationIssue } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { defaultYamlLimits } from "../yaml/YamlDocument.js"
import { type RouteSource, type ValidateRouteSourcesOptions, validateRouteSources } from "./RouteSources.js"

/** A valid route from a route file, with its provider `file:<file name>`. */
export interface FileRoute {
  readonly route: Route
  readonly provider: `file:${string}`
}

/** What {@link loadRouteFiles} found: every valid route, and every problem (each naming its file). */
export interface RouteFilesResult {
  readonly routes: ReadonlyArray<FileRoute>
  readonly issues: ReadonlyArray<ValidationIssue>
}

/** Whether a directory entry is a route file: `*.yml` / `*.yaml`, not hidden (editor and OS droppings). */
export const isRouteFileName = (name: string): boolean => !name.startsWith(".") && /\.ya?ml$/i.test(name)

const errorCode = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : String(error)

const problem = (file: string, message: string): ValidationIssue => ({ path: [], message, file })

type Listed = { readonly names: ReadonlyArray<string> } | { readonly issue: ValidationIssue }

// A routes directory that does not exist yet is an empty route table, not an error.
const listRouteFiles = (dir: string): Effect.Effect<Listed> =>
  Effect.tryPromise({ try: () => fs.readdir(dir, { withFileTypes: true }), catch: errorCode }).pipe(
    Effect.map(
      (entries): Listed => ({
        names: entries
          .filter((entry) => (entry.isFile() || entry.isSymbolicLink()) && isRouteFileName(entry.name))
          .map((entry) => entry.name)
          .sort()
      })
    ),
    Effect.catch((code) =>
      Effect.succeed<Listed>(
        code === "ENOENT" ? { names: [] } : { issue: problem(dir, `cannot read the routes directory (${code})`) }
      )
    )
  )

type Read = { readonly source: RouteSource } | { readonly issue: ValidationIssue } | undefined

// The size is checked before reading, so a huge file is refused without being loaded into memory.
const readRouteFile = (dir: string, name: string, maxBytes: number): Effect.Effect<Read> => {
  const path = nodePath.join(dir, name)
  return Effect.tryPromise({ try: () => fs.stat(path), catch: errorCode }).pipe(
    Effect.flatMap((stat): Effect.Effect<Read, string> => {
      if (!stat.isFile()) return Effect.succeed(undefined)
      if (stat.size > maxBytes) {
        return Effect.succeed({ issue: problem(name, `file is ${stat.size} bytes, over the limit of ${maxBytes}`) })
      }
      return Effect.tryPromise({ try: () => fs.readFile(path, "utf8"), catch: errorCode }).pipe(
        Effect.map((text) => ({ source: { file: name, text } }))
      )
    }),
    Effect.catch((code) => Effect.succeed<Read>({ issue: problem(name, `cannot read the file (${code})`) }))
  )
}

/** The route files of a directory as sources to validate, and the problems met reading them. */
export interface RouteDirectory {
  readonly sources: ReadonlyArray<RouteSource>
  readonly issues: ReadonlyArray<ValidationIssue>
}

/**
 * Reads the route files (`*.yml`, `*.yaml`; sorted by name, not recursive, hidden files skipped) of `dir`.
 * A missing directory has no files; an unreadable directory or file, or one over `maxBytes`, is an issue.
 */
export const readRouteDirectory = Effect.fn("readRouteDirectory")(function* (
  dir: string,
  options: { readonly maxBytes?: number | undefined } = {}
): Effect.fn.Return<RouteDirectory> {
  const listed = yield* listRouteFiles(dir)
  if ("issue" in listed) return { sources: [], issues: [listed.issue] }
  const maxBytes = options.maxBytes ?? defaultYamlLimits.maxBytes
  const read = yield* Effect.forEach(listed.names, (name) => readRouteFile(dir, name, maxBytes), { concurrency: 4 })
  return {
    sources: read.flatMap((r) => (r !== undefined && "source" in r ? [r.source] : [])),
    issues: read.flatMap((r) => (r !== undefined && "issue" in r ? [r.issue] : []))
  }
})

/** The readable route files of `dir` (see {@link readRouteDirectory}); files that cannot be read are left out. */
export const readRouteSources = (
  dir: string,
  options: { readonly maxBytes?: number | undefined } = {}
): Effect.Effect<ReadonlyArray<RouteSource>> => Effect.map(readRouteDirectory(dir, options), (d) => d.sources)

/**
 * Reads every route file of `dir` (see {@link readRouteDirectory}) and validates them together as one route
 * table. Never fails: unreadable files and every validation problem come back as issues carrying the `file`
 * name; the routes of files without problems are still returned, so the caller decides whether a partial
 * table is acceptable (the route service rejects a reload with any issue).
 */
export const loadRouteFiles = Effect.fn("loadRouteFiles")(function* (
  dir: string,
  options: ValidateRouteSourcesOptions = {}
): Effect.fn.Return<RouteFilesResult> {
  const directory = yield* readRouteDirectory(dir, { maxBytes: options.limits?.maxBytes })
  const report = validateRouteSources(directory.sources, options)
  const routes = report.files.flatMap(({ file, report }) =>
    report._tag === "Parsed"
      ? report.routes.flatMap((r) =>
          r.route === undefined ? [] : [{ route: r.route, provider: `file:${file}` as const }]
        )
      : []
  )
  return { routes, issues: [...directory.issues, ...report.issues] }
})
