import * as path from "node:path"
import { CertEvents } from "@gatehouse-edge/contract/domain"
import { watch } from "chokidar"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { CertificateConfig } from "../config/ConfigSections.js"
import { readTextFile } from "../config/ReadTextFile.js"
import type { Events } from "../events/Events.js"
import { publishOrLog } from "../events/PublishOrLog.js"
import { settledBatches } from "../util/SettledBatches.js"
import { type CertificatePair, CertificateProblem, parseCertificatePair } from "./CertificatePair.js"

/** A configured certificate from files, and the pair in use (`undefined` until its files once formed one). */
export interface FileCertificate {
  readonly config: CertificateConfig
  pair: CertificatePair | undefined
}

/** Reads and checks a certificate's two files; an unreadable file or a mismatch is a problem naming the file. */
export const readCertificateFiles = (config: CertificateConfig) =>
  Effect.gen(function* () {
    const unreadable = (error: { readonly path: string; readonly reason: string }) =>
      new CertificateProblem({ reason: `cannot read ${error.path}: ${error.reason}` })
    const cert = yield* readTextFile(config.cert).pipe(Effect.mapError(unreadable))
    const key = yield* readTextFile(config.key).pipe(Effect.mapError(unreadable))
    return yield* parseCertificatePair(cert, key)
  })

/**
 * The file provider: every `certificates[]` entry read at start, then watched (the directories of its files, so a
 * file replaced by rename is seen too). A change reloads the certificate once the writes settle (an editor or a
 * deploy tool writes the two files one after the other); a new pair is announced with `cert/reloaded`, a bad one
 * with `cert/load_failed` while the previous pair stays in use.
 */
export const makeFileCertificates = (
  configs: ReadonlyArray<CertificateConfig>,
  events: Events["Service"],
  options: { readonly settleMs?: number | undefined } = {}
): Effect.Effect<ReadonlyArray<FileCertificate>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const entries: ReadonlyArray<FileCertificate> = configs.map((config) => ({ config, pair: undefined }))
    // An event reports a load already done: a failing event store must not end the watch, or no later change of
    // the files would be loaded.
    const publish = publishOrLog(events, "certificate")

    const load = Effect.fnUntraced(function* (entry: FileCertificate, announce: boolean) {
      const { name, cert, key } = entry.config
      const result = yield* Effect.result(readCertificateFiles(entry.config))
      if (Result.isFailure(result)) {
        const error = result.failure.reason
        yield* Effect.logWarning(
          `certificate ${name}: ${error}; ${entry.pair === undefined ? "not available" : "the previous pair stays in use"}`
        )
        yield* publish(CertEvents.loadFailed({ name, cert, key, error }))
        return
      }
      const pair = result.success
      const same = entry.pair !== undefined && entry.pair.certPem === pair.certPem
      entry.pair = pair
      if (announce && !same) {
        yield* publish(
          CertEvents.reloaded({
            name,
            serial: pair.leaf.serialNumber.toUpperCase(),
            not_after: new Date(Date.parse(pair.leaf.validTo)).toISOString()
          })
        )
      }
    })

    yield* Effect.forEach(entries, (entry) => load(entry, false), { discard: true })
    if (entries.length === 0) return entries

    const byFile = new Map<string, Array<FileCertificate>>()
    for (const entry of entries) {
      for (const file of [entry.config.cert, entry.config.key]) {
        const absolute = path.resolve(file)
        byFile.set(absolute, [...(byFile.get(absolute) ?? []), entry])
      }
    }
    const directories = [...new Set([...byFile.keys()].map((file) => path.dirname(file)))]
    const changed = yield* Queue.unbounded<FileCertificate>()
    yield* Effect.acquireRelease(
      Effect.callback<ReturnType<typeof watch>>((resume) => {
        const watcher = watch(directories, { ignoreInitial: true, depth: 0 })
        watcher.on("all", (_event, file) => {
          for (const entry of byFile.get(path.resolve(file)) ?? []) Queue.offerUnsafe(changed, entry)
        })
        // A directory that does not exist (yet) is not an error of the server: the certificate is reported missing.
        watcher.on("error", () => {})
        watcher.once("ready", () => resume(Effect.succeed(watcher)))
      }),
      (watcher) => Effect.promise(() => watcher.close())
    )
    // A certificate and its key are often written one after the other: they are loaded once both have settled.
    yield* settledBatches(changed, { settleMs: options.settleMs ?? 300, maxWaitMs: 3000 }).pipe(
      Stream.runForEach((batch) =>
        Effect.forEach(new Set(batch), (entry) => load(entry, true), { discard: true }).pipe(
          // A load that dies (a bug) ends only that load: the next change of the files loads again.
          Effect.catchDefect((defect) => Effect.logWarning("loading changed certificate files failed", defect))
        )
      ),
      Effect.forkScoped
    )
    return entries
  })
