import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect, Layer, Schema } from "effect"
import { ConfigSource } from "../config/ConfigSource.js"
import { InvalidYaml, ValidationFailed } from "../domain/CommonErrors.js"
import { FileNotFound, type UnsafePath } from "../domain/FileErrors.js"
import { type FileType, FileValidationResult, type FileWritten } from "../domain/Files.js"
import type { ValidationUnavailable } from "../domain/ValidationErrors.js"
import { isRouteFileName, readRouteSources } from "../routes/RouteFiles.js"
import { Routes } from "../routes/Routes.js"
import { RouteValidator } from "../routes/RouteValidator.js"
import { writeFileAtomic } from "./AtomicWrite.js"
import { Files } from "./Files.js"
import { checkFileName, resolveInside } from "./SafePaths.js"

/** Where the editable files are. */
export interface FilesOptions {
  /** The server's config file; `undefined` when it runs on the embedded defaults (nothing to edit). */
  readonly configFile: string | undefined
  readonly routesDir: string
}

const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && (error as { code: unknown }).code === "ENOENT"

const encodeFileResult = Schema.encodeSync(FileValidationResult)

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The real {@link Files} service. */
export const make = Effect.fnUntraced(function* (options: FilesOptions) {
  const routes = yield* Routes
  const config = yield* ConfigSource
  const validator = yield* RouteValidator
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
  }).pipe(Effect.withSpan("Files.list"))

  const read = Effect.fn("Files.read")(function* (type: FileType, filename: string) {
    const file = yield* locate(type, filename)
    return yield* Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (error) => error }).pipe(
      Effect.catch((error) =>
        isMissing(error) ? Effect.fail(new FileNotFound({ type, filename })) : Effect.die(error)
      )
    )
  })

  const checkConfigText = Effect.fnUntraced(function* (text: string) {
    const result = yield* config.validate(text)
    if (result._tag === "Valid") return
    return yield* result.syntax
      ? new InvalidYaml({ issues: result.issues })
      : new ValidationFailed({ issues: result.issues })
  })

  // A route file is checked as part of the whole route table (duplicate aliases and port conflicts with the
  // other files count), but only its own problems block the write.
  const checkRouteFile = Effect.fnUntraced(function* (filename: string, text: string) {
    const others = (yield* readRouteSources(options.routesDir)).filter((source) => source.file !== filename)
    const report = yield* validator.validateSources([...others, { file: filename, text }])
    const error = RouteValidator.errorOf(report.files.at(-1)!.report)
    if (error !== undefined) return yield* error
  })

  const write = Effect.fn("Files.write")(function* (type: FileType, filename: string, content: string) {
    const target = yield* locate(type, filename)
    if (type === "config") yield* checkConfigText(content)
    else yield* checkRouteFile(filename, content)
    yield* writeFileAtomic(target, content)
    let message = `${type} file ${filename} written`
    if (type === "routes") {
      const outcome = yield* routes.reload
      const blocking = [...new Set(outcome.issues.flatMap((issue) => (issue.file === undefined ? [] : [issue.file])))]
      message +=
        outcome.issues.length === 0
          ? " and applied"
          : ` and applied; ${plural(blocking.length, "other route file")} (${blocking.join(", ")}) ` +
            `${blocking.length === 1 ? "has" : "have"} ${plural(outcome.issues.length, "problem")} and ` +
            `${blocking.length === 1 ? "keeps its" : "keep their"} previous routes (see the config/error event)`
    } else {
      const outcome = yield* config.reload
      message += outcome._tag === "Reloaded" && outcome.restartRequired.length > 0 ? "; restart to apply it" : ""
    }
    return { message, type, filename, bytes: Buffer.byteLength(content) } satisfies FileWritten
  })

  const validate = Effect.fn("Files.validate")(function* (
    type: FileType,
    content: string
  ): Effect.fn.Return<FileValidationResult, InvalidYaml | ValidationFailed | ValidationUnavailable> {
    if (type === "config") {
      yield* checkConfigText(content)
      return { valid: true as const, type }
    }
    return { valid: true as const, type, routes: yield* validator.validate(content) }
  })

  const validateJson = Effect.fn("Files.validateJson")(function* (
    type: FileType,
    content: string
  ): Effect.fn.Return<string, InvalidYaml | ValidationFailed | ValidationUnavailable> {
    if (type === "routes") return yield* validator.validateJson(content, "file")
    yield* checkConfigText(content)
    return JSON.stringify(encodeFileResult({ valid: true, type }))
  })

  return Files.of({ list, read, write, validate, validateJson })
})

/** The files of a running server: its config file and its routes directory. */
export const layer = (options: FilesOptions): Layer.Layer<Files, never, Routes | ConfigSource | RouteValidator> =>
  Layer.effect(Files, make(options))
