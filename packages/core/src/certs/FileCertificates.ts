import * as path from "node:path"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { CertificateConfig } from "../config/ConfigSections.js"
import type { Events } from "../events/Events.js"
import { settledBatches } from "../util/SettledBatches.js"
import { type CertificateDirWatch, watchCertificateDir } from "./CertificateDirWatch.js"
import { type FileCertificate, makeFileCertificateLoad } from "./FileCertificateLoad.js"

/** What the watches report: a file changed, a directory to follow, a watch error to log. */
type Change =
  | { readonly kind: "file"; readonly file: string }
  | { readonly kind: "directory"; readonly dir: string }
  | { readonly kind: "error"; readonly message: string }

// Distinct watch errors logged at most: the rest are repeats of a cause already in the log.
const MAX_LOGGED_WATCH_ERRORS = 20

// The longest timer of a wait: a clock that jumped (a laptop that slept) is noticed within a day.
const MAX_SLEEP = Duration.days(1)

/** Waits on `Clock` until `at` (ms since the epoch). */
const sleepUntil = (at: number) =>
  Effect.gen(function* () {
    for (;;) {
      const left = at - (yield* Clock.currentTimeMillis)
      if (left <= 0) return
      yield* Effect.sleep(Duration.min(Duration.millis(left), MAX_SLEEP))
    }
  })

/**
 * The file provider: every `certificates[]` entry read at start, then watched (the directories of its files, so a
 * file replaced by rename is seen too; a directory that does not exist yet is waited for, and read once it appears).
 * A change reloads the certificate once the writes settle (an editor or a deploy tool writes the two files one after
 * the other); a new pair is announced with `cert/reloaded`, a bad one (unreadable, not a pair, expired or not valid
 * yet) with `cert/load_failed` while the previous pair stays in use (see {@link makeFileCertificateLoad}).
 */
export const makeFileCertificates = (
  configs: ReadonlyArray<CertificateConfig>,
  events: Events["Service"],
  options: { readonly settleMs?: number | undefined } = {}
): Effect.Effect<ReadonlyArray<FileCertificate>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const entries: ReadonlyArray<FileCertificate> = configs.map((config) => ({
      config,
      pair: undefined,
      problem: undefined
    }))
    const changed = yield* Queue.unbounded<Change>()
    // A pair refused for not being valid yet is read again once it is (a change of its files, as far as the loads
    // are concerned), at most one wait per certificate: a later refusal replaces it.
    const rechecks = yield* FiberMap.make<FileCertificate>()
    const recheckAt = (entry: FileCertificate, at: number) =>
      FiberMap.run(
        rechecks,
        entry,
        Effect.andThen(sleepUntil(at), Queue.offer(changed, { kind: "file", file: path.resolve(entry.config.cert) }))
      ).pipe(Effect.asVoid)
    const load = makeFileCertificateLoad(events, recheckAt)

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
