import * as fs from "node:fs/promises"
import type { ValidationIssue, ValidationUnavailable } from "@gatehouse-edge/contract/domain"
import { ValidationFailed, ValidationQueueFull } from "@gatehouse-edge/contract/domain"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import { readRouteDirectory } from "./RouteFiles.js"
import type { ProvidedRoute, ProviderState } from "./RouteProviders.js"
import { RouteProviders } from "./RouteProviders.js"
import { type RouteSource, validateRouteSources } from "./RouteSources.js"
import { RouteValidator } from "./RouteValidator.js"

/** Where the route files are and how strictly to start. */
export interface FileRoutesOptions {
  readonly routesDir: string
  /** Refuse to start (fail the layer with every problem) when any route file is invalid, as CI wants. */
  readonly strict?: boolean | undefined
}

/** `routes_dir` names something that is not a directory, or one that cannot be made: the server does not start. */
export class RoutesDirUnusable extends Data.TaggedError("RoutesDirUnusable")<{
  readonly path: string
  readonly reason: string
}> {
  override get message() {
    return `routes_dir ${this.path} ${this.reason}`
  }
}

const codeOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "code" in error ? String(error.code) : String(error)

/**
 * Makes sure the routes directory is a directory, so it can be watched from the start: a missing one is created
 * (with its parents) and logged, and anything else at that path is a {@link RoutesDirUnusable}.
 */
export const ensureDirectory = Effect.fn("FileRoutes.ensureDirectory")(function* (dir: string) {
  const found = yield* Effect.tryPromise({ try: () => fs.stat(dir), catch: codeOf }).pipe(
    Effect.map(Option.some),
    Effect.catch((code) =>
      code === "ENOENT"
        ? Effect.succeedNone
        : Effect.fail(new RoutesDirUnusable({ path: dir, reason: `cannot be read (${code})` }))
    )
  )
  if (Option.isSome(found)) {
    if (found.value.isDirectory()) return
    return yield* new RoutesDirUnusable({ path: dir, reason: "is not a directory" })
  }
  yield* Effect.tryPromise({
    try: () => fs.mkdir(dir, { recursive: true }),
    catch: (error) => new RoutesDirUnusable({ path: dir, reason: `cannot be created (${codeOf(error)})` })
  })
  yield* Effect.logInfo(`created the routes directory ${dir}`)
})

/**
 * A reload finds the validation workers busy (API requests validating large documents fill their queue): it waits
 * and asks again, for up to ~15 s, rather than dropping the change until the next one comes. A timed-out or
 * failed validation is not retried: the same files would take as long again.
 */
const whileWorkersBusy = {
  schedule: Schedule.exponential("250 millis"),
  times: 6,
  while: (error: ValidationUnavailable) => error instanceof ValidationQueueFull
}

/**
 * The route files of a directory as a route provider. A file is the unit: a valid file's routes are offered; an
 * invalid or unreadable one keeps offering the routes of its last valid version (none if it never had one) and
 * its problems are reported, so one bad edit never takes the other files' routes — or its own old ones — down.
 * Starting behaves like reloading, unless `strict`. The directory is created when it does not exist yet (so the
 * config watcher has a directory to watch and files added later are loaded); one that is not a directory fails.
 */
export const make = Effect.fnUntraced(function* (options: FileRoutesOptions) {
  yield* ensureDirectory(options.routesDir)
  const validator = yield* RouteValidator
  const lastGood = new Map<string, ReadonlyArray<ProvidedRoute>>()
  // The text of each file's last valid version: what an edit changed, for blaming a clash between files.
  const lastGoodText = new Map<string, string>()
  const lock = yield* Semaphore.make(1)

  // A clash between two files (an alias defined in both, a port taken twice) is reported in the later source. The
  // files as they were last loaded come first, so the clash is the edited or new file's: it keeps its last good
  // routes and the untouched file keeps its own, instead of an edit taking a route away from another file.
  const unchangedFirst = (sources: ReadonlyArray<RouteSource>) => {
    const unchanged = (source: RouteSource) => lastGoodText.get(source.file) === source.text
    return [...sources.filter(unchanged), ...sources.filter((source) => !unchanged(source))]
  }

  const load: Effect.Effect<ProviderState> = lock
    .withPermits(1)(
      Effect.gen(function* () {
        const directory = yield* readRouteDirectory(options.routesDir)
        // `depends_on` may name a route another provider serves (a Docker container's): the merged table checks
        // it, on every change of any provider, so the route joins once its dependency is there.
        const validated = yield* Effect.result(
          validator
            .validateSources(unchangedFirst(directory.sources), { checkReferences: false })
            .pipe(Effect.retry(whileWorkersBusy))
        )
        if (Result.isFailure(validated)) {
          // Not validated at all (the validation workers were busy or failed): every file keeps its routes.
          const issue = { path: [], message: `the route files could not be validated: ${validated.failure.message}` }
          const routes = [...lastGood.keys()].sort().flatMap((file) => lastGood.get(file)!)
          return { routes, issues: [issue], unvalidated: validated.failure.message }
        }
        const report = validated.success
        const unreadable = new Set(directory.issues.flatMap((issue) => (issue.file === undefined ? [] : [issue.file])))
        const present = new Set(directory.sources.map((source) => source.file))
        const texts = new Map(directory.sources.map((source) => [source.file, source.text]))
        for (const { file, report: fileReport } of report.files) {
          if (!fileReport.valid) continue
          lastGoodText.set(file, texts.get(file)!)
          const source = `file:${file}`
          lastGood.set(
            file,
            RouteValidator.routesOf(fileReport).map((route) => ({ route, source, excluded: false }))
          )
        }
        // A file that is gone is gone; one that exists but cannot be read right now keeps its routes.
        for (const file of [...lastGood.keys()]) {
          if (!present.has(file) && !unreadable.has(file)) {
            lastGood.delete(file)
            lastGoodText.delete(file)
          }
        }
        const routes = [...lastGood.keys()].sort().flatMap((file) => lastGood.get(file)!)
        // Reported in the files' order, whichever order they were checked in.
        const order = new Map(directory.sources.map((source, index) => [source.file, index]))
        const issues = [...report.issues].sort(
          (a, b) => (order.get(a.file ?? "") ?? -1) - (order.get(b.file ?? "") ?? -1)
        )
        return { routes, issues: [...directory.issues, ...issues] }
      })
    )
    .pipe(Effect.withSpan("FileRoutes.load"))

  const initial = yield* load
  if (options.strict === true && initial.issues.length > 0) {
    return yield* new ValidationFailed({ issues: initial.issues })
  }
  const providers = yield* RouteProviders
  yield* providers.add({
    name: "files",
    // Later states come from `reload` (the config watcher and file writes call it), not from this stream.
    states: Stream.concat(Stream.succeed(initial), Stream.never),
    reload: load
  })
})

/**
 * The problems of the route files of `routesDir` (unreadable files, and every validation problem across them),
 * checked as `make` checks them, but offline: for a strict start to refuse before anything is created. As there,
 * `depends_on` may name a route another provider will serve (the merged table checks it).
 */
export const problemsOf = (routesDir: string): Effect.Effect<ReadonlyArray<ValidationIssue>> =>
  Effect.map(readRouteDirectory(routesDir), (directory) => [
    ...directory.issues,
    ...validateRouteSources(directory.sources, { checkReferences: false }).issues
  ])

/** Adds the route files of `routesDir` to the route table for the lifetime of the layer. */
export const layer = (
  options: FileRoutesOptions
): Layer.Layer<never, ValidationFailed | RoutesDirUnusable, RouteProviders | RouteValidator> =>
  Layer.effectDiscard(make(options))
