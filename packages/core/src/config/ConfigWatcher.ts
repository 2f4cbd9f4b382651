import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import { isRouteFileName } from "../routes/RouteFiles.js"
import { Routes } from "../routes/Routes.js"
import { settledBatches } from "../util/SettledBatches.js"
import { ConfigSource } from "./ConfigSource.js"
import { type FollowedDirWatch, watchFollowedDir } from "./FollowedDirWatch.js"
import { watchLinkedFile } from "./LinkedFileWatch.js"

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
  /**
   * How long a routes directory that is gone is waited for before its routes are removed: `rm -rf routes && mkdir
   * routes && cp …` or a restore should not take every route down and put it back.
   */
  readonly goneWaitMs?: number
}

type Changed = "config" | "routes"

// Distinct watch errors logged at most: an error storm (ENOSPC names every file once inotify runs out) must not
// flood the log nor grow the set that remembers them.
const MAX_LOGGED_WATCH_ERRORS = 100

// How often a routes directory that is gone is looked for while it is waited for.
const GONE_POLL_MS = 100

// How often a directory gone for good (the routes directory after the wait; the config file's) is looked for: the
// parent's watch tells when it is made again, unless the parent itself went with it (its watch is bound to the
// parent that was removed).
const GONE_RECHECK_MS = 2000

// Whether the directory holds a route file (one it cannot list holds none the reload could read either).
const hasRouteFiles = (dir: string): Effect.Effect<boolean> =>
  Effect.tryPromise(() => fs.readdir(dir)).pipe(
    Effect.map((names) => names.some(isRouteFileName)),
    Effect.orElseSucceed(() => false)
  )

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
 * configuration in place and is announced with `config/error`. The routes directory and the config file's are
 * followed too: removed and made again, or replaced by another one, they are watched and read again. Stops watching when its layer closes.
 */
export const layer = (options: ConfigWatcherOptions): Layer.Layer<never, never, Routes | ConfigSource> =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const routes = yield* Routes
      const config = yield* ConfigSource
      const configFile = options.configFile === undefined ? undefined : path.resolve(options.configFile)
      const routesDir = path.resolve(options.routesDir)

      const kindOf = (file: string): Changed | undefined => {
        const absolute = path.resolve(file)
        if (absolute === configFile) return "config"
        return path.dirname(absolute) === routesDir && isRouteFileName(path.basename(absolute)) ? "routes" : undefined
      }
      const queue = yield* Queue.unbounded<Changed>()
      const onChange = (file: string) => {
        const kind = kindOf(file)
        if (kind !== undefined) Queue.offerUnsafe(queue, kind)
      }
      // Bounded by `watchErrorLog`: at most one entry per distinct error.
      const errors = yield* Queue.unbounded<string>()
      const toLog = watchErrorLog()
      const onError = (error: unknown) => {
        const line = toLog(error)
        if (line !== undefined) Queue.offerUnsafe(errors, line)
      }
      yield* Stream.fromQueue(errors).pipe(
        Stream.runForEach((line) => Effect.logWarning(`watching the config and route files: ${line}`)),
        Effect.forkScoped
      )

      // Watching starts before the layer is ready, so a change made right after the server announces itself is
      // never missed.
      const routesWatch = yield* watchFollowedDir(routesDir, {
        isEntry: isRouteFileName,
        onEntry: onChange,
        onDirectory: () => Queue.offerUnsafe(queue, "routes"),
        onError
      })
      // The config file is watched through its directory: a watch on the file itself ends when the file is replaced
      // (unlinked and created again by `git checkout`, `rm f; echo > f`, some editors' saves); and the directory is
      // followed as the routes directory is, for a deploy that replaces it (or the tree it is in).
      const configWatch =
        configFile === undefined
          ? undefined
          : yield* watchFollowedDir(path.dirname(configFile), {
              isEntry: (name) => name === path.basename(configFile),
              onEntry: onChange,
              onDirectory: () => Queue.offerUnsafe(queue, "config"),
              onError
            })

      // What the config file leads to through symbolic links, followed as they are pointed elsewhere: the watch
      // above sees the link in its directory, not a link further on (`ln -sfn v2 current`).
      const linkedWatch =
        configFile === undefined
          ? undefined
          : yield* watchLinkedFile(configFile, { onChange: () => Queue.offerUnsafe(queue, "config"), onError })

      const goneWaitMs = options.goneWaitMs ?? 2000
      // While a directory is gone for good it is looked for now and then, and read once it is back (its parent's
      // watch tells sooner, unless the parent went with it).
      const lookOut = (watch: FollowedDirWatch, kind: Changed) =>
        watch.follow.pipe(
          Effect.repeat({ until: (present) => present, schedule: Schedule.spaced(GONE_RECHECK_MS) }),
          Effect.andThen(Queue.offer(queue, kind))
        )
      const routesLookout = yield* FiberHandle.make<void>()
      const configLookout = yield* FiberHandle.make<void>()

      // The watches move to the config file's directory now at its path, and to what its links lead to now, before
      // the file is read; a directory gone is read as a missing file (reported like any unreadable config) and
      // looked out for.
      const reloadConfig = Effect.gen(function* () {
        if (configWatch !== undefined && !(yield* configWatch.follow)) {
          yield* FiberHandle.run(configLookout, lookOut(configWatch, "config"), { onlyIfMissing: true })
        }
        if (linkedWatch !== undefined) yield* linkedWatch.follow
        yield* config.reload
      })

      const reloadRoutes = Effect.gen(function* () {
        // The watch moves to the directory now at the path before it is read, so no later change goes unseen.
        if (!(yield* routesWatch.follow)) {
          // Read as empty, a directory gone for a moment (`rm -rf routes && mkdir routes && cp …`, a restore)
          // would take every route down and put it back: it is given a moment to come back first.
          yield* Effect.logInfo(
            `the routes directory ${routesDir} is gone (or not a directory); waiting ${goneWaitMs} ms for it`
          )
          // Back means made again with its files: a directory made again empty (a restore that makes it, then fills
          // it) is waited for too, within the same time.
          const backWithFiles = Effect.flatMap(routesWatch.follow, (present) =>
            present ? hasRouteFiles(routesDir) : Effect.succeed(false)
          )
          const back = yield* backWithFiles.pipe(
            Effect.repeat({
              until: (filled) => filled,
              schedule: Schedule.spaced(GONE_POLL_MS),
              times: Math.ceil(goneWaitMs / GONE_POLL_MS)
            })
          )
          if (!back) {
            if (!(yield* routesWatch.follow)) {
              yield* FiberHandle.run(routesLookout, lookOut(routesWatch, "routes"), { onlyIfMissing: true })
            }
            yield* Effect.logWarning(
              `the routes directory ${routesDir} is still gone (or not a directory, or without route files) after ` +
                `${goneWaitMs} ms: its routes are removed`
            )
          }
        }
        yield* routes.reload
      })

      // A reload that dies (a bug, a failing event store) ends only that reload: the next change reloads again.
      const reload = Effect.fnUntraced(
        function* (batch: ReadonlyArray<Changed>) {
          if (batch.includes("config")) yield* reloadConfig
          if (batch.includes("routes")) yield* reloadRoutes
        },
        Effect.catchDefect((defect) => Effect.logWarning("reloading after a file change failed", defect))
      )
      yield* settledBatches(queue, { settleMs: options.settleMs ?? 200, maxWaitMs: options.maxWaitMs ?? 2000 }).pipe(
        Stream.runForEach(reload),
        Effect.forkScoped
      )
    })
  )
