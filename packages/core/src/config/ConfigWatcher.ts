import * as path from "node:path"
import { watch } from "chokidar"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { isRouteFileName } from "../routes/RouteFiles.js"
import { Routes } from "../routes/Routes.js"
import { ConfigSource } from "./ConfigSource.js"

/** What the watcher follows. */
export interface ConfigWatcherOptions {
  readonly configFile: string | undefined
  readonly routesDir: string
  /** Changes closer together than this are applied as one reload (editors write a file in several steps). */
  readonly settleMs?: number
}

type Changed = "config" | "routes"

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

      const kindOf = (file: string): Changed | undefined => {
        const absolute = path.resolve(file)
        if (absolute === configFile) return "config"
        return path.dirname(absolute) === routesDir && isRouteFileName(path.basename(absolute)) ? "routes" : undefined
      }

      const queue = yield* Queue.unbounded<Changed>()
      // Watching starts before the layer is ready (chokidar's "ready"), so a change made right after the server
      // announces itself is never missed.
      yield* Effect.acquireRelease(
        Effect.callback<ReturnType<typeof watch>>((resume) => {
          const watcher = watch([routesDir, ...(configFile === undefined ? [] : [configFile])], {
            ignoreInitial: true,
            depth: 0
          })
          watcher.on("all", (_event, file) => {
            const kind = kindOf(file)
            if (kind !== undefined) Queue.offerUnsafe(queue, kind)
          })
          watcher.once("ready", () => resume(Effect.succeed(watcher)))
        }),
        (watcher) => Effect.promise(() => watcher.close())
      )
      const changes = Stream.fromQueue(queue)

      yield* changes.pipe(
        Stream.groupedWithin(1000, options.settleMs ?? 200),
        Stream.runForEach((batch) =>
          Effect.gen(function* () {
            if (batch.includes("config")) yield* config.reload
            if (batch.includes("routes")) yield* routes.reload
          })
        ),
        Effect.forkScoped
      )
    })
  )
