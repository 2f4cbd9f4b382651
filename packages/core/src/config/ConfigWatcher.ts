import * as path from "node:path"
import { watch } from "chokidar"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { isRouteFileName } from "../routes/RouteFiles.js"
import { Routes } from "../routes/Routes.js"
import { settledBatches } from "../util/SettledBatches.js"
import { ConfigSource } from "./ConfigSource.js"

/** What the watcher follows. */
export interface ConfigWatcherOptions {
  readonly configFile: string | undefined
  readonly routesDir: string
  /**
   * A reload waits until the files have not changed for this long (editors and scripts write a file in several
   * steps), though no longer than `maxWaitMs` after the first change.
   */
  readonly settleMs?: number
  readonly maxWaitMs?: number
}

type Changed = "config" | "routes"

// Distinct watch errors logged at most: an error storm (ENOSPC names every file once inotify runs out) must not
// flood the log nor grow the set that remembers them.
const MAX_LOGGED_WATCH_ERRORS = 100

/**
 * What to log of a watch error: its message the first time, nothing for a repeat, and once the limit is reached a
 * last line saying that further ones go unlogged.
 */
const watchErrorLog = () => {
  const seen = new Set<string>()
  return (error: unknown): string | undefined => {
    const message = error instanceof Error ? error.message : String(error)
    if (seen.has(message) || seen.size > MAX_LOGGED_WATCH_ERRORS) return undefined
    seen.add(message)
    return seen.size > MAX_LOGGED_WATCH_ERRORS
      ? `more than ${MAX_LOGGED_WATCH_ERRORS} distinct errors; further ones are not logged`
      : message
  }
}

/**
 * Watches the config file and the route files and reloads what changed: a valid change is applied (routes live,
 * config settings at the next start) and announced with `config/reload`; an invalid one leaves the running
 * configuration in place and is announced with `config/error`. Stops watching when its layer closes.
 */
export const layer = (options: ConfigWatcherOptions): Layer.Layer<never, never, Routes | ConfigSource> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const routes = yield* Routes
      const config = yield* ConfigSource
      const configFile = options.configFile === undefined ? undefined : path.resolve(options.configFile)
      const routesDir = path.resolve(options.routesDir)
      // The config file is watched through its directory: a watch on the file itself ends when the file is
      // replaced (unlinked and created again by `git checkout`, `rm f; echo > f`, some editors' saves).
      const roots = [...new Set([routesDir, ...(configFile === undefined ? [] : [path.dirname(configFile)])])]

      const kindOf = (file: string): Changed | undefined => {
        const absolute = path.resolve(file)
        if (absolute === configFile) return "config"
        return path.dirname(absolute) === routesDir && isRouteFileName(path.basename(absolute)) ? "routes" : undefined
      }
      // Every other entry of the directories is left alone: each watched file costs an inotify watch, and the
      // config file's directory may be a busy one (/etc).
      const ignored = (file: string) => !roots.includes(path.resolve(file)) && kindOf(file) === undefined

      const queue = yield* Queue.unbounded<Changed>()
      // Bounded by `watchErrorLog`: at most one entry per distinct error.
      const errors = yield* Queue.unbounded<string>()
      const toLog = watchErrorLog()
      // Watching starts before the layer is ready (chokidar's "ready"), so a change made right after the server
      // announces itself is never missed.
      yield* Effect.acquireRelease(
        Effect.callback<ReturnType<typeof watch>>((resume) => {
          const watcher = watch(roots, { ignoreInitial: true, depth: 0, ignored })
          watcher.on("all", (_event, file) => {
            const kind = kindOf(file)
            if (kind !== undefined) Queue.offerUnsafe(queue, kind)
          })
          // A file chokidar cannot watch (EACCES, ENOSPC once inotify watches run out, EMFILE) is emitted as
          // "error", which would kill the process with no listener. The other files are still watched, and the
          // route loader reports a file it cannot read as a problem.
          watcher.on("error", (error) => {
            const line = toLog(error)
            if (line !== undefined) Queue.offerUnsafe(errors, line)
          })
          watcher.once("ready", () => resume(Effect.succeed(watcher)))
        }),
        (watcher) => Effect.promise(() => watcher.close())
      )
      yield* Stream.fromQueue(errors).pipe(
        Stream.runForEach((line) => Effect.logWarning(`watching the config and route files: ${line}`)),
        Effect.forkScoped
      )

      // A reload that dies (a bug, a failing event store) ends only that reload: the next change reloads again.
      const reload = Effect.fnUntraced(
        function* (batch: ReadonlyArray<Changed>) {
          if (batch.includes("config")) yield* config.reload
          if (batch.includes("routes")) yield* routes.reload
        },
        Effect.catchDefect((defect) => Effect.logWarning("reloading after a file change failed", defect))
      )
      yield* settledBatches(queue, { settleMs: options.settleMs ?? 200, maxWaitMs: options.maxWaitMs ?? 2000 }).pipe(
        Stream.runForEach(reload),
        Effect.forkScoped
      )
    })
  )
