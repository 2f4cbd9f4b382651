import * as fs from "node:fs/promises"
import * as path from "node:path"
import type { ValidationUnavailable } from "@gatehouse-edge/contract/domain"
import {
  FileNotFound,
  FileNotRegular,
  FileOperationTimedOut,
  FileSystemFailed,
  FileTooLarge,
  type FileType,
  FileValidationResult,
  type FileWritten,
  InvalidYaml,
  type UnsafePath,
  ValidationFailed
} from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import { ConfigSource } from "../config/ConfigSource.js"
import { isRouteFileName, readRouteSources } from "../routes/RouteFiles.js"
import { Routes } from "../routes/Routes.js"
import { RouteValidator } from "../routes/RouteValidator.js"
import { commitStaged, isStaleTempFile, stageFile } from "./AtomicWrite.js"
import { fileKind } from "./FileKind.js"
import { FileSystemFailure } from "./FileSystemFailure.js"
import { Files } from "./Files.js"
import { checkFileName, resolveInside } from "./SafePaths.js"
import { readRegularFile } from "./SafeRead.js"

/** Where the editable files are. */
export interface FilesOptions {
  /** The server's config file; `undefined` when it runs on the embedded defaults (nothing to edit). */
  readonly configFile: string | undefined
  readonly routesDir: string
}

/** The largest file the API reads or writes: the YAML parser's own limit. */
const MAX_FILE_BYTES = 8 * 1024 * 1024
/** How long one file operation may take before the request gives up on it. */
const FILE_OPERATION_TIMEOUT_MS = 10_000

const encodeFileResult = Schema.encodeSync(FileValidationResult)

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The real {@link Files} service. */
export const make = Effect.fnUntraced(function* (options: FilesOptions) {
  const routes = yield* Routes
  const config = yield* ConfigSource
  const validator = yield* RouteValidator
  const configName = options.configFile === undefined ? undefined : path.basename(options.configFile)

  // What a client learns of a file system failure: the operation, the file it named, and the reason with its code.
  const failedAs =
    (type: FileType, filename: string, operation: string) =>
    <A, E, R>(effect: Effect.Effect<A, E | FileSystemFailure, R>): Effect.Effect<A, E | FileSystemFailed, R> =>
      Effect.catchIf(
        effect,
        (error): error is FileSystemFailure => error instanceof FileSystemFailure,
        (failure) => Effect.fail(new FileSystemFailed({ type, filename, operation, problem: failure.reason }))
      )

  // Resolves a checked name to a path: config files only by the name of the running config file.
  const locate = (
    type: FileType,
    filename: string
  ): Effect.Effect<string, FileNotFound | UnsafePath | FileSystemFailure> =>
    Effect.flatMap(
      checkFileName(filename),
      (name): Effect.Effect<string, FileNotFound | UnsafePath | FileSystemFailure> => {
        if (type === "config") {
          return name === configName && options.configFile !== undefined
            ? Effect.succeed(options.configFile)
            : Effect.fail(new FileNotFound({ type, filename }))
        }
        return Effect.andThen(
          Effect.tryPromise({
            try: () => fs.mkdir(options.routesDir, { recursive: true }),
            catch: FileSystemFailure.of
          }),
          resolveInside(options.routesDir, name)
        )
      }
    )

  // A file operation that hangs (a stuck disk, a network file system) must not hold its request forever.
  const bounded = <A, E, R>(type: FileType, filename: string, operation: string, effect: Effect.Effect<A, E, R>) =>
    Effect.timeoutOrElse(effect, {
      duration: FILE_OPERATION_TIMEOUT_MS,
      orElse: () =>
        Effect.fail(new FileOperationTimedOut({ type, filename, operation, timeout_ms: FILE_OPERATION_TIMEOUT_MS }))
    })

  // Only regular files are listed (a directory or FIFO named `x.yml` is not a route file), and only those that
  // stay inside the directory.
  const listRegular = Effect.gen(function* () {
    const names = yield* Effect.tryPromise(() => fs.readdir(options.routesDir)).pipe(
      Effect.catch(() => Effect.succeed<Array<string>>([]))
    )
    const regular = yield* Effect.forEach(
      names.filter(isRouteFileName),
      (name) =>
        Effect.gen(function* () {
          const file = yield* Effect.option(resolveInside(options.routesDir, name))
          if (file._tag === "None") return []
          // A file the server cannot even look at is not listed (reading it says why).
          const kind = yield* fileKind(file.value).pipe(Effect.orElseSucceed(() => ({ _tag: "Missing" }) as const))
          return kind._tag === "File" ? [name] : []
        }),
      { concurrency: 8 }
    )
    return regular.flat().sort()
  })

  const list = Effect.gen(function* () {
    return { config: configName === undefined ? [] : [configName], routes: yield* listRegular }
  }).pipe(Effect.withSpan("Files.list"))

  const read = Effect.fn("Files.read")(function* (type: FileType, filename: string) {
    const file = yield* failedAs(type, filename, "reading")(locate(type, filename))
    return yield* bounded(
      type,
      filename,
      "reading",
      readRegularFile(file, MAX_FILE_BYTES).pipe(
        Effect.mapError((refusal): FileNotFound | FileNotRegular | FileTooLarge | FileSystemFailed => {
          switch (refusal._tag) {
            case "Missing":
              return new FileNotFound({ type, filename })
            case "NotRegular":
              return new FileNotRegular({ type, filename, kind: refusal.kind })
            case "TooLarge":
              return new FileTooLarge({ type, filename, size_bytes: refusal.size, limit_bytes: MAX_FILE_BYTES })
            case "FileSystemFailure":
              return new FileSystemFailed({ type, filename, operation: "reading", problem: refusal.reason })
          }
        })
      )
    )
  })

  // Only a regular file (or a name not taken yet) is ever replaced.
  const checkReplaceable = Effect.fnUntraced(function* (type: FileType, filename: string, target: string) {
    const kind = yield* fileKind(target)
    if (kind._tag === "Other") return yield* new FileNotRegular({ type, filename, kind: kind.kind })
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

  // One write at a time, from its checks to its reload: two writes checked against the same files would both
  // pass (the same alias added to two route files), and two writes of one file would lose one edit silently.
  const writing = yield* Semaphore.make(1)

  const write = Effect.fn("Files.write")(function* (type: FileType, filename: string, content: string) {
    return yield* writing.withPermits(1)(writeNow(type, filename, content))
  })

  const writeNow = Effect.fnUntraced(function* (type: FileType, filename: string, content: string) {
    const failed = failedAs(type, filename, "writing")
    const target = yield* failed(locate(type, filename))
    yield* failed(checkReplaceable(type, filename, target))
    if (type === "config") yield* checkConfigText(content)
    else yield* checkRouteFile(filename, content)
    // Only the staging is bounded: once the rename is asked for, the write is made, and the answer must say so
    // (a timeout then would report a write that happened as one that did not).
    yield* failed(
      Effect.scoped(Effect.flatMap(bounded(type, filename, "writing", stageFile(target, content)), commitStaged))
    )
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

  yield* removeStaleTempFiles(options)
  return Files.of({ list, read, write, validate, validateJson })
})

// A crash between writing a temp file and renaming it leaves `.<name>.<hex>.tmp` behind: nothing else writes
// those names, so at start every one of them is stale.
const removeStaleTempFiles = Effect.fnUntraced(function* (options: FilesOptions) {
  const dirs = [options.routesDir, ...(options.configFile === undefined ? [] : [path.dirname(options.configFile)])]
  for (const dir of new Set(dirs)) {
    const names = yield* Effect.tryPromise(() => fs.readdir(dir)).pipe(Effect.catch(() => Effect.succeed([])))
    for (const name of names.filter(isStaleTempFile)) {
      yield* Effect.tryPromise(() => fs.rm(path.join(dir, name), { force: true })).pipe(
        Effect.andThen(Effect.logInfo(`removed a temp file left by an interrupted write: ${path.join(dir, name)}`)),
        Effect.catch((error) => Effect.logWarning(`cannot remove stale temp file ${path.join(dir, name)}`, error))
      )
    }
  }
})

/** The files of a running server: its config file and its routes directory. */
export const layer = (options: FilesOptions): Layer.Layer<Files, never, Routes | ConfigSource | RouteValidator> =>
  Layer.effect(Files, make(options))
