import * as path from "node:path"
import { ConfigEvents, formatIssue, type ValidationIssue } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Equal from "effect/Equal"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import { Events } from "../events/Events.js"
import { publishOrLog } from "../events/PublishOrLog.js"
import { ValidationWorkers } from "../validation/ValidationWorkers.js"
import * as ValidationWorkersLive from "../validation/ValidationWorkersLive.js"
import { isSection } from "./ConfigKeys.js"
import { type ConfigReloadOutcome, ConfigSource } from "./ConfigSource.js"
import type { GatehouseConfig } from "./GatehouseConfig.js"
import { type ConfigResult, type ConfigSources, loadConfig } from "./LoadConfig.js"
import { readTextFile } from "./ReadTextFile.js"

// Flattens the validated file to `key.path → value` so a reload can say which settings changed. Values are only
// compared (a `Redacted` secret by its content), never shown: events and logs name the keys. Only the file's
// sections are walked into: a decoded value (a listen address is `{host, port}`) or a list is one setting, named by
// the key it is written at.
const flatten = (value: unknown, at: ReadonlyArray<string> = [], out = new Map<string, unknown>()) => {
  if (Predicate.isObject(value) && !Array.isArray(value) && isSection(at)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, [...at, key], out)
  } else {
    out.set(at.join("."), value)
  }
  return out
}

const changedKeys = (before: GatehouseConfig, after: GatehouseConfig): ReadonlyArray<string> => {
  const a = flatten(before.file)
  const b = flatten(after.file)
  return [...new Set([...a.keys(), ...b.keys()])].filter((key) => !Equal.equals(a.get(key), b.get(key))).sort()
}

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
      // Whether the last word on the file was `config/error`: the next valid read says so with `config/reload`, even
      // when the file is back to what was last applied (a bad edit reverted, a deleted file restored).
      const rejectedLast = yield* Ref.make(false)
      const lock = yield* Semaphore.make(1)
      const file = initial.configFile
      const candidate = (text: string) => ({ path: file ?? "gatehouse.yml", text })
      // The outcome stands without its event: a failing event store must not turn a reload into a defect that
      // ends the file watcher, nor hide the outcome from whoever asked for the reload.
      const publish = publishOrLog(events, "config")

      const reject = Effect.fnUntraced(function* (configFile: string, issues: ReadonlyArray<ValidationIssue>) {
        yield* Effect.logWarning(
          `config file ${configFile} rejected; the running configuration stays`,
          ...issues.map(formatIssue)
        )
        yield* Ref.set(rejectedLast, true)
        yield* publish(ConfigEvents.rejected({ source: "config", file: configFile, issues }))
        return { _tag: "Rejected", issues } as const
      })

      const reloadFrom = Effect.fnUntraced(function* (configFile: string) {
        const read = yield* Effect.result(readTextFile(configFile))
        if (Result.isFailure(read)) {
          const message = `cannot read the config file: ${read.failure.reason}`
          return yield* reject(configFile, [{ path: [], message, file: configFile }])
        }
        const result: ConfigResult = loadConfig({ ...sources, file: candidate(read.success) })
        if (result._tag === "Invalid") return yield* reject(configFile, result.issues)
        const changed = changedKeys(yield* Ref.get(lastSeen), result.config)
        const recovered = yield* Ref.getAndSet(rejectedLast, false)
        if (changed.length === 0 && !recovered) return { _tag: "Reloaded", changed, restartRequired: [] } as const
        yield* Ref.set(lastSeen, result.config)
        const restartRequired = changedKeys(yield* Ref.get(running), result.config)
        const said =
          changed.length === 0
            ? `config file ${configFile} accepted again; no setting differs from its last valid read`
            : `config file ${configFile} changed`
        yield* Effect.logInfo(said).pipe(
          Effect.annotateLogs({ changed: changed.join(", "), restart_required: restartRequired.join(", ") })
        )
        yield* publish(
          ConfigEvents.reloaded({ source: "config", file: configFile, changed, restart_required: restartRequired })
        )
        return { _tag: "Reloaded", changed, restartRequired } as const
      })

      const unchanged: ConfigReloadOutcome = { _tag: "Reloaded", changed: [], restartRequired: [] }
      const reload: Effect.Effect<ConfigReloadOutcome> = lock
        .withPermits(1)(file === undefined ? Effect.succeed(unchanged) : reloadFrom(file))
        .pipe(Effect.withSpan("ConfigSource.reload"))

      // The file's own problems first, located in the file; then what only the running server's variables and
      // flags add (a restart sees them too). Issues name the file as the API does, by its name.
      const validate = Effect.fn("ConfigSource.validate")(function* (text: string) {
        const result = yield* workers.run({ kind: "config", text, path: candidate(text).path, sources })
        if (result._tag === "Valid") return result
        const name = path.basename(candidate(text).path)
        const issues = result.issues.map((issue) => (issue.file === undefined ? issue : { ...issue, file: name }))
        return { ...result, issues }
      })

      return ConfigSource.of({ current: Ref.get(running), validate, reload })
    })
  )

/** {@link layerOnWorkers} with the server's shared validation workers (`ValidationWorkersLive.layer`). */
export const layer = (
  initial: GatehouseConfig,
  sources: Omit<ConfigSources, "file">
): Layer.Layer<ConfigSource, never, Events> =>
  layerOnWorkers(initial, sources).pipe(Layer.provide(ValidationWorkersLive.layer))
