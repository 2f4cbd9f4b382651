import * as fs from "node:fs/promises"
import * as path from "node:path"
import {
  FileNotFound,
  FileNotRegular,
  FileOperationTimedOut,
  FilePreconditionFailed,
  FileSystemFailed,
  FileTooLarge,
  type FileType,
  FileValidationResult,
  FileWriteBusy,
  type FileWritten,
  fileStepTimeoutMs,
  InvalidYaml,
  maxFileBytes,
  RateLimited,
  UnsafePath,
  ValidationFailed,
  type ValidationUnavailable
} from "@gatehouse-edge/contract/domain"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { ConfigSource } from "../config/ConfigSource.js"
import { isRouteFileName, readRouteSources } from "../routes/RouteFiles.js"
import type { RouteSource } from "../routes/RouteSources.js"
import { Routes } from "../routes/Routes.js"
import { RouteValidator } from "../routes/RouteValidator.js"
import { commitStaged, type StagedFile, stageFile, tempFileFor } from "./AtomicWrite.js"
import { fileKind } from "./FileKind.js"
import { type CurrentFile, preconditionProblem, revisionOf } from "./FileRevision.js"
import { FileSystemFailure } from "./FileSystemFailure.js"
import { Files, type PendingContent, type WritePrecondition } from "./Files.js"
import { checkOpenedRouteFile } from "./OpenedRouteFile.js"
import { listRouteFiles } from "./RouteFileListing.js"
import { routeWriteOutcome } from "./RouteWriteOutcome.js"
import {
  type CheckedRouteFile,
  checkFileName,
  checkPathComponent,
  checkRouteFilePath,
  liesInside,
  realOf
} from "./SafePaths.js"
import { readRegularFile } from "./SafeRead.js"
import { type BoundedStep, makeWriteLock } from "./WriteLock.js"

/** Where the editable files are, and how long their operations may take. */
export interface FilesOptions {
  /** The server's config file; `undefined` when it runs on the embedded defaults (nothing to edit). */
  readonly configFile: string | undefined
  readonly routesDir: string
  /** How long one file operation may take before the request gives up on it (default 10 s). */
  readonly operationTimeout?: Duration.Input | undefined
  /**
   * How long one write may hold the write lock before the writes that have waited as long behind it are refused
   * (default 10 s): one stuck on a disk must not make every later write hang behind it. A queue of writes that
   * moves is waited in.
   */
  readonly lockTimeout?: Duration.Input | undefined
  /**
   * How many bytes of content the writes waiting for the write lock (and the one holding it) may hold together
   * (default 64 MiB, eight of the largest files): past it a write is refused with 429 instead of queuing. A queue
   * that moves is waited in however long it is, so without this a client's requests in flight (each up to 8 MiB)
   * could hold gigabytes while they wait.
   */
  readonly maxQueuedBytes?: number | undefined
  /**
   * How long content still to come (a request body) may take to arrive once it is counted in the queue (default
   * 60 s: 8 MiB at ~1 Mbit/s): a client that trickles its body must not hold its share of the queue, and refuse
   * everyone else's writes, for as long as the HTTP server lets a request last.
   */
  readonly receiveTimeout?: Duration.Input | undefined
  /**
   * For tests only: runs in each route file read between the checks of its path and its open, the window in which
   * a file swapped for a link must still be refused (see OpenedRouteFile). Nothing sets it in the server.
   */
  readonly afterReadChecks?: Effect.Effect<void> | undefined
}

const DEFAULT_TIMEOUT = Duration.millis(fileStepTimeoutMs)

const encodeFileResult = Schema.encodeSync(FileValidationResult)

// A reload after a write that could not validate the files (the validation workers still busy after the route
// loader's own wait, or timing out) leaves the write unapplied until the next change: try again until one validates,
// at most four times (5 s after the write, then 5, 10 and 20 s apart).
const retryReloadSchedule = Schedule.exponential("5 seconds")
const RELOAD_RETRIES = 4

/** The real {@link Files} service. */
export const make = Effect.fnUntraced(function* (options: FilesOptions) {
  const routes = yield* Routes
  const config = yield* ConfigSource
  const validator = yield* RouteValidator
  const configName = options.configFile === undefined ? undefined : path.basename(options.configFile)
  const operationTimeout = options.operationTimeout ?? DEFAULT_TIMEOUT
  const timeoutMs = Duration.toMillis(operationTimeout)
  const lockTimeoutMs = Duration.toMillis(options.lockTimeout ?? DEFAULT_TIMEOUT)
  const receiveTimeout = options.receiveTimeout ?? Duration.seconds(60)

  // What a client learns of a file system failure: the operation, the file it named, and the reason with its code.
  const failedAs =
    (type: FileType, filename: string, operation: string) =>
    <A, E, R>(effect: Effect.Effect<A, E | FileSystemFailure, R>): Effect.Effect<A, E | FileSystemFailed, R> =>
      Effect.catchIf(
        effect,
        (error): error is FileSystemFailure => error instanceof FileSystemFailure,
        (failure) => Effect.fail(new FileSystemFailed({ type, filename, operation, problem: failure.reason }))
      )

  // The routes directory as a read finds it: a read never changes the file system, so one that is missing (the
  // route loader creates it at start, an operator may remove it since) holds no file. Only a write creates it.
  const routesDirFor = (type: FileType, filename: string, access: "read" | "write") =>
    access === "write"
      ? Effect.tryPromise({ try: () => fs.mkdir(options.routesDir, { recursive: true }), catch: FileSystemFailure.of })
      : Effect.flatMap(fileKind(options.routesDir), (kind) =>
          kind._tag === "Missing" ? Effect.fail(new FileNotFound({ type, filename })) : Effect.void
        )

  // Resolves a checked name to a path: config files only by the name of the running config file (whatever it is
  // called: it is the one name accepted), route files by any name the route loader loads (see SafePaths), with
  // what the check found of them. The config file is not checked further: it is the operator's, wherever its link
  // leads.
  const find = (
    type: FileType,
    filename: string,
    access: "read" | "write"
  ): Effect.Effect<
    { readonly target: string; readonly routeFile?: CheckedRouteFile },
    FileNotFound | UnsafePath | FileSystemFailure
  > => {
    if (type === "config") {
      if (filename === configName && options.configFile !== undefined) {
        return Effect.succeed({ target: options.configFile })
      }
      return Effect.andThen(checkPathComponent(filename), Effect.fail(new FileNotFound({ type, filename })))
    }
    return Effect.flatMap(checkFileName(filename), (name) =>
      Effect.andThen(
        routesDirFor(type, filename, access),
        Effect.map(checkRouteFilePath(options.routesDir, name, options.configFile), (routeFile) => ({
          target: routeFile.target,
          routeFile
        }))
      )
    )
  }
  const locate = (type: FileType, filename: string, access: "read" | "write") =>
    Effect.map(find(type, filename, access), (found) => found.target)

  const timedOut = (type: FileType, filename: string, operation: string) =>
    new FileOperationTimedOut({ type, filename, operation, timeout_ms: timeoutMs })

  // A file operation that hangs (a stuck disk, a network file system) must not hold its request forever.
  const bounded = <A, E, R>(type: FileType, filename: string, operation: string, effect: Effect.Effect<A, E, R>) =>
    Effect.timeoutOrElse(effect, {
      duration: operationTimeout,
      orElse: () => Effect.fail(timedOut(type, filename, operation))
    })

  // The listing reads the routes directory and looks at each file in it: on a stuck disk it gives up as the other
  // steps do. It names no file, so its timeout names them all ("*").
  const list = Effect.gen(function* () {
    const listing = yield* bounded(
      "routes",
      "*",
      "listing",
      Effect.mapError(
        listRouteFiles(options.routesDir, options.configFile),
        (failure) =>
          new FileSystemFailed({ type: "routes", filename: "*", operation: "listing", problem: failure.reason })
      )
    )
    return {
      config: configName === undefined ? [] : [configName],
      routes: listing.editable,
      ...(listing.notEditable.length === 0 ? {} : { not_editable: listing.notEditable })
    }
  }).pipe(Effect.withSpan("Files.list"))

  // The file's bytes, or why not, as the errors a client gets. A route file read for a client is proven, once
  // open, to be the one its checks found (`routeFile`): see OpenedRouteFile.
  const readBytes = (type: FileType, filename: string, file: string, routeFile?: CheckedRouteFile) =>
    bounded(
      type,
      filename,
      "reading",
      readRegularFile(
        file,
        maxFileBytes,
        routeFile === undefined ? undefined : checkOpenedRouteFile(routeFile, options.configFile)
      ).pipe(
        Effect.mapError((refusal): FileNotFound | FileNotRegular | FileTooLarge | FileSystemFailed | UnsafePath => {
          if (refusal instanceof UnsafePath) return refusal
          switch (refusal._tag) {
            case "Missing":
              return new FileNotFound({ type, filename })
            case "NotRegular":
              return new FileNotRegular({ type, filename, kind: refusal.kind })
            case "TooLarge":
              return new FileTooLarge({ type, filename, size_bytes: refusal.size, limit_bytes: maxFileBytes })
            case "FileSystemFailure":
              return new FileSystemFailed({ type, filename, operation: "reading", problem: refusal.reason })
          }
        })
      )
    )

  // The revision is of the bytes, not of the text decoded from them: a file that is not valid UTF-8 still has one
  // revision, the same the write's precondition computes. Finding the file (the routes directory's stat, its links
  // resolved) waits on the disk as the read does, so it is bounded as a step of its own.
  const read = Effect.fn("Files.read")(function* (type: FileType, filename: string) {
    const found = yield* bounded(
      type,
      filename,
      "reading",
      failedAs(type, filename, "reading")(find(type, filename, "read"))
    )
    if (options.afterReadChecks !== undefined) yield* options.afterReadChecks
    const bytes = yield* readBytes(type, filename, found.target, found.routeFile)
    return { content: bytes.toString("utf8"), revision: revisionOf(bytes) }
  })

  // The file as a precondition sees it. One too large to read has no revision a client could hold (reading it
  // through the API is refused), so it matches no `If-Match`.
  const currentFile = (type: FileType, filename: string, file: string) =>
    readBytes(type, filename, file).pipe(
      Effect.map((bytes): CurrentFile => ({ exists: true, revision: revisionOf(bytes) })),
      Effect.catchIf(
        (error) => error instanceof FileNotFound,
        () => Effect.succeed<CurrentFile>({ exists: false })
      ),
      Effect.catchIf(
        (error) => error instanceof FileTooLarge,
        () => Effect.succeed<CurrentFile>({ exists: true, revision: undefined })
      )
    )

  const checkPrecondition = Effect.fnUntraced(function* (
    type: FileType,
    filename: string,
    file: string,
    precondition: WritePrecondition
  ) {
    if (precondition.ifMatch === undefined && precondition.ifNoneMatch === undefined) return
    const problem = preconditionProblem(precondition, yield* currentFile(type, filename, file))
    if (problem !== undefined) return yield* new FilePreconditionFailed({ type, filename, problem })
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
  // other files count, and `depends_on` may name the routes other providers serve now), but only its own problems
  // block the write.
  const checkRouteFile = Effect.fnUntraced(function* (
    filename: string,
    text: string,
    sources: ReadonlyArray<RouteSource>
  ) {
    const others = sources.filter((source) => source.file !== filename)
    const knownAliases = (yield* routes.list).flatMap((record) =>
      record.provider.startsWith("file:") ? [] : [record.route.alias]
    )
    const report = yield* validator.validateSources([...others, { file: filename, text }], { knownAliases })
    const error = RouteValidator.errorOf(report.files.at(-1)!.report)
    if (error !== undefined) return yield* error
  })

  // The content of the writes waiting for the lock or holding it (see `maxQueuedBytes`).
  let queuedBytes = 0
  const maxQueuedBytes = options.maxQueuedBytes ?? 8 * maxFileBytes
  // One write at a time, from its checks to its reload: two writes checked against the same files would both
  // pass (the same alias added to two route files). This orders writes, it does not stop one from replacing an
  // edit its writer never saw: that is the precondition's job (`If-Match`), checked under this lock. A write stuck
  // on the file system keeps it: a write that has waited `lockTimeout` behind one that has held it as long is refused.
  const writing = yield* makeWriteLock({ lock: options.lockTimeout ?? DEFAULT_TIMEOUT, step: operationTimeout })
  // At most one pending retry of the reload, however many writes asked for one.
  const reloadRetry = yield* FiberHandle.make<void, never>()

  const queueFull = (type: FileType, filename: string) =>
    new RateLimited({
      message: `${type} file "${filename}" was not written: other file writes are waiting; try again later`,
      retry_after_s: 1
    })

  // A write counts its content in the queue from before it is received (a request body, at the most it can be) to
  // its end, then as what it turned out to be: a request in flight holds its body only if the queue had room for it.
  const write = Effect.fn("Files.write")(function* <E>(
    type: FileType,
    filename: string,
    content: string | PendingContent<E>,
    precondition: WritePrecondition = {}
  ) {
    // Nothing is written that could not be read back.
    const tooLarge = (bytes: number) =>
      new FileTooLarge({ type, filename, size_bytes: bytes, limit_bytes: maxFileBytes })
    const announced = typeof content === "string" ? Buffer.byteLength(content) : content.maxBytes
    if (typeof content === "string" && announced > maxFileBytes) return yield* tooLarge(announced)
    // What this write counts in `queuedBytes`, given back once whatever ends it (a body cut short, its client gone).
    let held = 0
    return yield* Effect.acquireUseRelease(
      Effect.suspend(() => {
        if (queuedBytes + announced > maxQueuedBytes) return Effect.fail(queueFull(type, filename))
        queuedBytes += announced
        held = announced
        return Effect.void
      }),
      () =>
        Effect.gen(function* () {
          const text =
            typeof content === "string"
              ? content
              : yield* Effect.timeoutOrElse(content.read, {
                  duration: receiveTimeout,
                  orElse: () =>
                    Effect.fail(
                      new FileOperationTimedOut({
                        type,
                        filename,
                        operation: "receiving",
                        timeout_ms: Duration.toMillis(receiveTimeout)
                      })
                    )
                })
          const bytes = Buffer.byteLength(text)
          queuedBytes += bytes - held
          held = bytes
          if (bytes > maxFileBytes) return yield* tooLarge(bytes)
          return yield* writing.withLock(
            () => new FileWriteBusy({ type, filename, timeout_ms: lockTimeoutMs }),
            (step) => writeNow(type, filename, text, precondition, step)
          )
        }),
      () =>
        Effect.sync(() => {
          queuedBytes -= held
        })
    )
  })

  const retryReload = Effect.sleep("5 seconds").pipe(
    Effect.andThen(
      Effect.repeat(routes.reload, {
        schedule: retryReloadSchedule,
        times: RELOAD_RETRIES - 1,
        while: (outcome) => (outcome.unvalidated?.length ?? 0) > 0
      })
    ),
    Effect.asVoid
  )

  // The new content put in place, as one step of the write: staged next to the file, the precondition checked
  // again (the file may have been edited on disk while a large document was validated), then renamed over it. A
  // timeout before the rename is asked for leaves the file untouched: the step, which runs on (see WriteLock), stops
  // there and removes its temp file. One after it cannot undo the rename, so it says `replacing`: the whole new
  // content may still take the file's place (never part of it).
  const writeOut = (
    type: FileType,
    filename: string,
    target: string,
    content: string,
    precondition: WritePrecondition,
    step: BoundedStep
  ) => {
    const progress = { abandoned: false, replacing: false }
    const commit = (staged: StagedFile) =>
      Effect.suspend(() => {
        if (progress.abandoned) return Effect.interrupt
        progress.replacing = true
        return commitStaged(staged)
      })
    const stagedThenCommitted = Effect.scoped(
      Effect.flatMap(stageFile(target, content, { permitted: permittedFor(type) }), (staged) =>
        Effect.andThen(checkPrecondition(type, filename, target, precondition), commit(staged))
      )
    )
    const abandon = () => {
      progress.abandoned = true
    }
    // A link found where none may be refuses the path the request named (400), rather than reporting a disk failure.
    const linksRefused = Effect.catchIf(
      stagedThenCommitted,
      (error): error is FileSystemFailure => error instanceof FileSystemFailure && error.isLinkRefusal,
      (refused) => Effect.fail(new UnsafePath({ parameter: "filename", problem: refused.reason }))
    )
    return step(failedAs(type, filename, "writing")(linksRefused), () => {
      abandon()
      return timedOut(type, filename, progress.replacing ? "replacing" : "writing")
    }).pipe(
      // A request that is gone (its client left) writes nothing either, unless the rename was already asked for.
      Effect.onInterrupt(() => Effect.sync(abandon))
    )
  }

  // Where a write may go, asked of the path its file resolves to when it is staged (a link in the routes directory
  // may have been changed since the checks): a route file inside the routes directory and not the config file.
  // The config file is written wherever its own link leads: the operator made it.
  const permittedFor = (type: FileType) => (file: string) =>
    type === "config"
      ? Effect.succeed(true)
      : Effect.gen(function* () {
          const inside = liesInside(yield* realOf(options.routesDir), file)
          return inside && (options.configFile === undefined || file !== (yield* realOf(options.configFile)))
        })

  const writeNow = Effect.fnUntraced(function* (
    type: FileType,
    filename: string,
    content: string,
    precondition: WritePrecondition,
    step: BoundedStep
  ) {
    const failed = failedAs(type, filename, "writing")
    const stuck = () => timedOut(type, filename, "writing")
    // The file as it is: where, whether it may be replaced, and the precondition, before the validation, so a
    // stale edit learns that first, however valid it is.
    const checked = Effect.tap(locate(type, filename, "write"), (target) =>
      Effect.andThen(checkReplaceable(type, filename, target), checkPrecondition(type, filename, target, precondition))
    )
    const target = yield* step(failed(checked), stuck)
    if (type === "config") yield* checkConfigText(content)
    else yield* checkRouteFile(filename, content, yield* step(readRouteSources(options.routesDir), stuck))
    yield* writeOut(type, filename, target, content, precondition, step)
    let message = `${type} file ${filename} written`
    // The reload reads the files again: a disk that sticks now fails the request as `reloading` (the file is
    // written, its reload still running) instead of holding it.
    const reloading = () => timedOut(type, filename, "reloading")
    if (type === "routes") {
      const outcome = routeWriteOutcome(filename, yield* step(routes.reload, reloading))
      message += outcome.text
      if (!outcome.validated) yield* FiberHandle.run(reloadRetry, retryReload, { onlyIfMissing: true })
    } else {
      const outcome = yield* step(config.reload, reloading)
      message += outcome._tag === "Reloaded" && outcome.restartRequired.length > 0 ? "; restart to apply it" : ""
    }
    const written: FileWritten = { message, type, filename, bytes: Buffer.byteLength(content) }
    return { written, revision: revisionOf(content) }
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

// A crash between writing a temp file and renaming it leaves `.<name>.<hex>.tmp` next to the file it was for: at
// start, every such file of a route file (in the routes directory, which is ours) and of the config file (next to
// it, or next to the file its symlink points to) is stale. Nothing else is touched: the config's directory may be a
// shared one (/etc), where another program's `.x.<hex>.tmp` is none of ours.
const removeStaleTempFiles = Effect.fnUntraced(function* (options: FilesOptions) {
  const ours: Array<{ readonly dir: string; readonly isFor: (name: string) => boolean }> = [
    { dir: options.routesDir, isFor: isRouteFileName }
  ]
  if (options.configFile !== undefined) {
    const configFile = options.configFile
    const real = yield* Effect.tryPromise(() => fs.realpath(configFile)).pipe(Effect.orElseSucceed(() => configFile))
    for (const file of new Set([configFile, real])) {
      ours.push({ dir: path.dirname(file), isFor: (name) => name === path.basename(file) })
    }
  }
  for (const { dir, isFor } of ours) {
    const names = yield* Effect.tryPromise(() => fs.readdir(dir)).pipe(Effect.catch(() => Effect.succeed([])))
    for (const name of names) {
      const target = tempFileFor(name)
      if (target === undefined || !isFor(target)) continue
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
