import * as fs from "node:fs/promises"
import { Context, Effect, Layer, Ref, Semaphore } from "effect"
import type { ValidationIssue } from "../domain/ValidationIssue.js"
import { Events } from "../events/Events.js"
import type { GatehouseConfig } from "./GatehouseConfig.js"
import { type ConfigResult, type ConfigSources, loadConfig } from "./LoadConfig.js"

/** What reloading the config file did. */
export type ConfigReloadOutcome =
  | {
      readonly _tag: "Reloaded"
      readonly changed: ReadonlyArray<string>
      readonly restartRequired: ReadonlyArray<string>
    }
  | { readonly _tag: "Rejected"; readonly issues: ReadonlyArray<ValidationIssue> }

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

/**
 * The server's configuration as read from its file, with the environment and flags it was started with.
 * `validate` checks a candidate text exactly as a restart would see it; `reload` re-reads the file and, on any
 * problem, keeps the running configuration and emits `config/error`. Settings are applied at start, so a valid
 * change is reported in `config/reload` as needing a restart (route files reload live, see `Routes`).
 */
export class ConfigSource extends Context.Service<
  ConfigSource,
  {
    readonly current: Effect.Effect<GatehouseConfig>
    readonly validate: (text: string) => ConfigResult
    readonly reload: Effect.Effect<ConfigReloadOutcome>
  }
>()("@gatehouse-edge/core/ConfigSource") {
  /** The config of a running server: `initial` as loaded at start, re-read from `initial.configFile`. */
  static readonly layer = (
    initial: GatehouseConfig,
    sources: Omit<ConfigSources, "file">
  ): Layer.Layer<ConfigSource, never, Events> =>
    Layer.effect(
      ConfigSource,
      Effect.gen(function* () {
        const events = yield* Events
        const running = yield* Ref.make(initial)
        const lastSeen = yield* Ref.make(initial)
        const lock = yield* Semaphore.make(1)
        const file = initial.configFile
        const validate = (text: string) => loadConfig({ ...sources, file: { path: file ?? "gatehouse.yml", text } })

        const reload: Effect.Effect<ConfigReloadOutcome> = lock.withPermits(1)(
          Effect.gen(function* () {
            if (file === undefined) return { _tag: "Reloaded", changed: [], restartRequired: [] } as const
            const text = yield* Effect.tryPromise(() => fs.readFile(file, "utf8")).pipe(
              Effect.catch((error) => Effect.succeed({ unreadable: String(error) }))
            )
            const result: ConfigResult =
              typeof text === "string"
                ? validate(text)
                : {
                    _tag: "Invalid",
                    issues: [{ path: [], message: `cannot read the config file: ${text.unreadable}`, file }],
                    syntax: false
                  }
            if (result._tag === "Invalid") {
              yield* events.publish({
                level: "error",
                category: "config",
                action: "error",
                data: { source: "config", file, issues: result.issues }
              })
              return { _tag: "Rejected", issues: result.issues } as const
            }
            const changed = changedKeys(yield* Ref.get(lastSeen), result.config)
            if (changed.length === 0) return { _tag: "Reloaded", changed, restartRequired: [] } as const
            yield* Ref.set(lastSeen, result.config)
            const restartRequired = changedKeys(yield* Ref.get(running), result.config)
            yield* events.publish({
              level: "info",
              category: "config",
              action: "reload",
              data: { source: "config", file, changed, restart_required: restartRequired }
            })
            return { _tag: "Reloaded", changed, restartRequired } as const
          })
        )
        return ConfigSource.of({ current: Ref.get(running), validate, reload })
      })
    )
}
