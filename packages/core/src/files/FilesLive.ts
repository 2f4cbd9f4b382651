import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import { ConfigSource } from "../config/ConfigSource.js"
import { InvalidYaml, ValidationFailed } from "../domain/CommonErrors.js"
import { FileNotFound, type UnsafePath } from "../domain/FileErrors.js"
import type { FileType, FileValidationResult, FileWritten } from "../domain/Files.js"
import { isRouteFileName, readRouteSources } from "../routes/RouteFiles.js"
import { reportIssues } from "../routes/RouteReport.js"
import { validateRouteSources } from "../routes/RouteSources.js"
import { Routes } from "../routes/Routes.js"
import { validateRoutes } from "../routes/ValidateRoutes.js"
import { writeFileAtomic } from "./AtomicWrite.js"
import { checkFileName, resolveInside } from "./SafePaths.js"

/** Where the editable files are. */
export interface FilesOptions {
  /** The server's config file; `undefined` when it runs on the embedded defaults (nothing to edit). */
  readonly configFile: string | undefined
  readonly routesDir: string
}

const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === "ENOENT"

/** The real {@link Files} service. */
export const makeFiles = Effect.fnUntraced(function* (options: FilesOptions) {
  const routes = yield* Routes
  const config = yield* ConfigSource
  const configName = options.configFile === undefined ? undefined : path.basename(options.configFile)

  // Resolves a checked name to a path: config files only by the name of the running config file.
  const locate = (type: FileType, filename: string): Effect.Effect<string, FileNotFound | UnsafePath> =>
    Effect.flatMap(checkFileName(filename), (name): Effect.Effect<string, FileNotFound | UnsafePath> => {
      if (type === "config") {
        return name === configName && options.configFile !== undefined
          ? Effect.succeed(options.configFile)
          : Effect.fail(new FileNotFound({ type, filename }))
      }
      return Effect.andThen(
        Effect.promise(() => fs.mkdir(options.routesDir, { recursive: true })),
        resolveInside(options.routesDir, name)
      )
    })

  const list = Effect.gen(function* () {
    const names = yield* Effect.tryPromise(() => fs.readdir(options.routesDir)).pipe(
      Effect.catch(() => Effect.succeed<Array<string>>([]))
    )
    return { config: configName === undefined ? [] : [configName], routes: names.filter(isRouteFileName).sort() }
  })

  const read = (type: FileType, filename: string) =>
    Effect.flatMap(locate(type, filename), (file) =>
      Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (error) => error }).pipe(
        Effect.catch((error) =>
          isMissing(error) ? Effect.fail(new FileNotFound({ type, filename })) : Effect.die(error)
        )
      )
    )

  const checkConfigText = (text: string): Effect.Effect<void, InvalidYaml | ValidationFailed> => {
    const result = config.validate(text)
    if (result._tag === "Valid") return Effect.void
    return result.syntax
      ? Effect.fail(new InvalidYaml({ issues: result.issues }))
      : Effect.fail(new ValidationFailed({ issues: result.issues }))
  }

  // A route file is checked as part of the whole route table (duplicate aliases and port conflicts with the
  // other files count), but only its own problems block the write.
  const checkRouteFile = (filename: string, text: string) =>
    Effect.gen(function* () {
      const others = (yield* readRouteSources(options.routesDir)).filter((source) => source.file !== filename)
      const report = validateRouteSources([...others, { file: filename, text }])
      const own = report.files.at(-1)!.report
      if (own._tag === "InvalidYaml") return yield* new InvalidYaml({ issues: own.issues })
      if (!own.valid) return yield* new ValidationFailed({ issues: reportIssues(own) })
    })

  const write = (type: FileType, filename: string, content: string) =>
    Effect.gen(function* () {
      const target = yield* locate(type, filename)
      if (type === "config") yield* checkConfigText(content)
      else yield* checkRouteFile(filename, content)
      yield* writeFileAtomic(target, content)
      let message = `${type} file ${filename} written`
      if (type === "routes") {
        const outcome = yield* routes.reload
        message +=
          outcome._tag === "Reloaded"
            ? " and applied"
            : `; routes not reloaded: ${outcome.issues.length} problem(s) in other files (see the config/error event)`
      } else {
        const outcome = yield* config.reload
        message += outcome._tag === "Reloaded" && outcome.restartRequired.length > 0 ? "; restart to apply it" : ""
      }
      return { message, type, filename, bytes: Buffer.byteLength(content) } satisfies FileWritten
    })

  const validate = (
    type: FileType,
    content: string
  ): Effect.Effect<FileValidationResult, InvalidYaml | ValidationFailed> =>
    type === "config"
      ? Effect.as(checkConfigText(content), { valid: true as const, type })
      : Effect.map(validateRoutes(content), (validated) => ({ valid: true as const, type, routes: validated }))

  return { list, read, write, validate }
})
