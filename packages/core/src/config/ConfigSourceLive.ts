import * as fs from "node:fs/promises"
import { Effect, Layer, Ref, Semaphore } from "effect"
import { ConfigEvents } from "../domain/ConfigEvents.js"
import { Events } from "../events/Events.js"
import { ValidationWorkers } from "../validation/ValidationWorkers.js"
import * as ValidationWorkersLive from "../validation/ValidationWorkersLive.js"
import { type ConfigReloadOutcome, ConfigSource } from "./ConfigSource.js"
import type { GatehouseConfig } from "./GatehouseConfig.js"
import { type ConfigResult, type ConfigSources, loadConfig } from "./LoadConfig.js"

// Flattens the validated file to `key.path → JSON` so a reload can say which settings changed.
const flatten = (value: unknown, prefix = ""): Map<string, string> => {
  const out = new Map<string, string>()
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) {
      for (const [k, v] of flatten(inner, prefix === "" ? key : `${prefix}.${key}`)) out.set(k, v)
    }
  } else {
    out.set(prefix, JSON.stringify(value))
  }
  return out
}

const changedKeys = (before: GatehouseConfig, after: GatehouseConfig): ReadonlyArray<string> => {
  const a = flatten(before.file)
  const b = flatten(after.file)
  return [...new Set([...a.keys(), ...b.keys()])].filter((key) => a.get(key) !== b.get(key)).sort()
}

const describeReadError = (error: unknown): string =>
  error instanceof Error && "code" in error ? String((error as NodeJS.ErrnoException).code) : String(error)

/**
 * The config of a running server: `initial` as loaded at start, re-read from `initial.configFile`. Reloading reads
 * the server's own file (trusted, at start and on change) in this thread: the nesting pre-scan bounds it. A
 * candidate text from the API (`validate`) goes through {@link ValidationWorkers}: a large one is checked on a
 * worker thread.
 */
export const layerOnWorkers = (
  initial: GatehouseConfig,
  sources: Omit<ConfigSources, "file">
): Layer.Layer<ConfigSource, never, Events | ValidationWorkers> =>
  Layer.effect(
    ConfigSource,
    Effect.gen(function* () {
      const events = yield* Events
      const workers = yield* ValidationWorkers
      const running = yield* Ref.make(initial)
      const lastSeen = yield* Ref.make(initial)
      const lock = yield* Semaphore.make(1)
      const file = initial.configFile
      const check = (text: string) => loadConfig({ ...sources, file: { path: file ?? "gatehouse.yml", text } })

      const reload: Effect.Effect<ConfigReloadOutcome> = lock
        .withPermits(1)(
          Effect.gen(function* () {
            if (file === undefined) return { _tag: "Reloaded", changed: [], restartRequired: [] } as const
            const text = yield* Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: describeReadError })
            const result: ConfigResult = check(text)
            if (result._tag === "Invalid") {
              yield* events.publish(ConfigEvents.rejected({ source: "config", file, issues: result.issues }))
              return { _tag: "Rejected", issues: result.issues } as const
            }
            const changed = changedKeys(yield* Ref.get(lastSeen), result.config)
            if (changed.length === 0) return { _tag: "Reloaded", changed, restartRequired: [] } as const
            yield* Ref.set(lastSeen, result.config)
            const restartRequired = changedKeys(yield* Ref.get(running), result.config)
            yield* events.publish(
              ConfigEvents.reloaded({ source: "config", file, changed, restart_required: restartRequired })
            )
            return { _tag: "Reloaded", changed, restartRequired } as const
          }).pipe(
            Effect.catch((reason: string) => {
              const issues = [{ path: [], message: `cannot read the config file: ${reason}`, file: file! }]
              return Effect.as(events.publish(ConfigEvents.rejected({ source: "config", file: file!, issues })), {
                _tag: "Rejected" as const,
                issues
              })
            })
          )
        )
        .pipe(Effect.withSpan("ConfigSource.reload"))

      return ConfigSource.of({
        current: Ref.get(running),
        validate: Effect.fn("ConfigSource.validate")((text: string) =>
          workers.run({ kind: "config", text, path: file ?? "gatehouse.yml", sources })
        ),
        reload
      })
    })
  )

/** {@link layerOnWorkers} with the server's shared validation workers (`ValidationWorkersLive.layer`). */
export const layer = (
  initial: GatehouseConfig,
  sources: Omit<ConfigSources, "file">
): Layer.Layer<ConfigSource, never, Events> =>
  layerOnWorkers(initial, sources).pipe(Layer.provide(ValidationWorkersLive.layer))
