import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type NotEditableFile, UnsafePath } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { isRouteFileName } from "../routes/RouteFiles.js"
import { fileKind } from "./FileKind.js"
import { FileSystemFailure } from "./FileSystemFailure.js"
import { resolveRouteFile, routeFileNameProblem } from "./SafePaths.js"

/** The route files of a directory as the API lists them. */
export interface RouteFileListing {
  /** The names the API reads and writes. */
  readonly editable: ReadonlyArray<string>
  /** Files the route loader loads that the API cannot address, and why. */
  readonly notEditable: ReadonlyArray<NotEditableFile>
}

/**
 * Lists what the route loader loads: every regular file (or symlink to one) named as a route file. A directory or
 * FIFO named `x.yml` is not a route file, and a file the server cannot even look at is not listed (reading it says
 * why). A loaded file whose name the API refuses, or that leads out of the directory, is listed as not editable
 * rather than left out: its routes are served, so an operator must be able to see it, and learn why to rename it.
 * A missing directory holds no file; one the server cannot read (permission denied, an I/O error) is a
 * {@link FileSystemFailure}, not an empty list that would hide why.
 */
export const listRouteFiles = (
  routesDir: string,
  configFile?: string
): Effect.Effect<RouteFileListing, FileSystemFailure> =>
  Effect.gen(function* () {
    const names = yield* Effect.tryPromise({
      try: () => fs.readdir(routesDir),
      catch: (error) => error as NodeJS.ErrnoException
    }).pipe(
      Effect.catch((error) =>
        error.code === "ENOENT" ? Effect.succeed<Array<string>>([]) : Effect.fail(FileSystemFailure.of(error))
      )
    )
    const entries = yield* Effect.forEach(
      names.filter(isRouteFileName).sort(),
      (name) =>
        Effect.gen(function* () {
          const kind = yield* fileKind(path.join(routesDir, name)).pipe(
            Effect.orElseSucceed(() => ({ _tag: "Missing" }) as const)
          )
          if (kind._tag !== "File") return []
          const problem =
            routeFileNameProblem(name) ??
            (yield* resolveRouteFile(routesDir, name, configFile).pipe(
              Effect.map(() => undefined),
              Effect.catchIf(
                (error): error is UnsafePath => error instanceof UnsafePath,
                (refused) => Effect.succeed(refused.problem)
              )
            ))
          return [{ filename: name, problem }]
        }),
      { concurrency: 8 }
    )
    const listed = entries.flat()
    return {
      editable: listed.flatMap((entry) => (entry.problem === undefined ? [entry.filename] : [])),
      notEditable: listed.flatMap((entry) =>
        entry.problem === undefined ? [] : [{ filename: entry.filename, problem: entry.problem }]
      )
    }
  })
