import * as path from "node:path"
import { CertEvents } from "@gatehouse-edge/contract/domain"
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
import { type CertificateDirWatch, watchCertificateDir } from "./CertificateDirWatch.js"
import { type CertificatePair, CertificateProblem, parseCertificatePair } from "./CertificatePair.js"

/** A configured certificate from files, and the pair in use (`undefined` until its files once formed one). */
export interface FileCertificate {
  readonly config: CertificateConfig
  pair: CertificatePair | undefined
}

/** What the watches report: a file changed, a directory to follow, a watch error to log. */
type Change =
  | { readonly kind: "file"; readonly file: string }
  | { readonly kind: "directory"; readonly dir: string }
  | { readonly kind: "error"; readonly message: string }

// Distinct watch errors logged at most: the rest are repeats of a cause already in the log.
const MAX_LOGGED_WATCH_ERRORS = 20

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
 * file replaced by rename is seen too; a directory that does not exist yet is waited for, and read once it appears).
 * A change reloads the certificate once the writes settle (an editor or a deploy tool writes the two files one after
 * the other); a new pair is announced with `cert/reloaded`, a bad one with `cert/load_failed` while the previous pair
 * stays in use.
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
    const byDirectory = new Map<string, Set<FileCertificate>>()
    for (const entry of entries) {
      for (const file of [entry.config.cert, entry.config.key]) {
        const absolute = path.resolve(file)
        byFile.set(absolute, [...(byFile.get(absolute) ?? []), entry])
        const dir = path.dirname(absolute)
        byDirectory.set(dir, (byDirectory.get(dir) ?? new Set()).add(entry))
      }
    }
    const changed = yield* Queue.unbounded<Change>()
    const logged = new Set<string>()
    const onError = (error: unknown) => {
      // Once per distinct error (ENOSPC once inotify watches run out, EACCES): a watch that fails keeps failing.
      const message = error instanceof Error ? error.message : String(error)
      if (logged.size < MAX_LOGGED_WATCH_ERRORS && !logged.has(message)) {
        logged.add(message)
        Queue.offerUnsafe(changed, { kind: "error", message })
      }
    }
    const watches = new Map<string, CertificateDirWatch>()
    for (const dir of byDirectory.keys()) {
      watches.set(
        dir,
        yield* watchCertificateDir(dir, {
          onEntry: (file) => Queue.offerUnsafe(changed, { kind: "file", file }),
          onPath: () => Queue.offerUnsafe(changed, { kind: "directory", dir }),
          onError
        })
      )
    }

    const handle = Effect.fnUntraced(function* (batch: ReadonlyArray<Change>) {
      const toLoad = new Set<FileCertificate>()
      for (const change of batch) {
        if (change.kind === "error") yield* Effect.logWarning(`watching certificate files: ${change.message}`)
        if (change.kind === "file") for (const entry of byFile.get(change.file) ?? []) toLoad.add(entry)
      }
      for (const dir of new Set(batch.flatMap((change) => (change.kind === "directory" ? [change.dir] : [])))) {
        // The watch moves before the files are read, so a file written meanwhile is read or seen; a directory that
        // appeared may hold its files already (moved into place).
        if (yield* watches.get(dir)!.follow) for (const entry of byDirectory.get(dir)!) toLoad.add(entry)
      }
      yield* Effect.forEach(toLoad, (entry) => load(entry, true), { discard: true })
    })
    // A certificate and its key are often written one after the other: they are loaded once both have settled.
    yield* settledBatches(changed, { settleMs: options.settleMs ?? 300, maxWaitMs: 3000 }).pipe(
      Stream.runForEach((batch) =>
        handle(batch).pipe(
          // A load that dies (a bug) ends only that load: the next change of the files loads again.
          Effect.catchDefect((defect) => Effect.logWarning("loading changed certificate files failed", defect))
        )
      ),
      Effect.forkScoped
    )
    return entries
  })
