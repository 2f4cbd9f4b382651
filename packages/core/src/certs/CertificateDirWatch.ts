import * as fsp from "node:fs/promises"
import * as path from "node:path"
import type { FSWatcher } from "chokidar"
import * as Effect from "effect/Effect"
import { closeWatch, openWatch } from "../config/FileWatch.js"

/** Whom a {@link watchCertificateDir} tells. */
export interface CertificateDirWatchOptions {
  /** An entry of the directory was added, changed or removed (its absolute path). */
  readonly onEntry: (file: string) => void
  /** The directory, or an ancestor on the way to it, was created, removed or renamed: time to `follow`. */
  readonly onPath: () => void
  readonly onError: (error: unknown) => void
}

/** The watch of a certificate directory that may not exist (yet). */
export interface CertificateDirWatch {
  /**
   * Moves the watch to the directory when it is there, else to its nearest existing ancestor (from which it waits
   * for the next step towards it). Whether the directory is there.
   */
  readonly follow: Effect.Effect<boolean>
}

const isDirectory = (dir: string): Effect.Effect<boolean> =>
  Effect.tryPromise(() => fsp.stat(dir)).pipe(
    Effect.map((stat) => stat.isDirectory()),
    Effect.orElseSucceed(() => false)
  )

/** `dir` when it is a directory, else its nearest ancestor that is one (at worst the root). */
const nearestDirectory = (dir: string): Effect.Effect<string> =>
  Effect.gen(function* () {
    let current = dir
    while (!(yield* isDirectory(current)) && path.dirname(current) !== current) current = path.dirname(current)
    return current
  })

/**
 * Watches the entries of the absolute directory `dir` (not below it). A directory that does not exist (yet: a volume
 * mounted later, a deploy that makes it) is waited for from its nearest existing ancestor, watched for the one entry
 * on the way to `dir` only: the ancestor may be a big, busy directory (`/`, `/etc`), and every entry watched costs an
 * inotify watch. Stops watching when the scope closes.
 */
export const watchCertificateDir = Effect.fnUntraced(function* (dir: string, options: CertificateDirWatchOptions) {
  let watched: { readonly target: string | undefined; readonly watcher: FSWatcher | undefined } = {
    target: undefined,
    watcher: undefined
  }
  yield* Effect.addFinalizer(() => (watched.watcher === undefined ? Effect.void : closeWatch(watched.watcher)))

  const follow = Effect.gen(function* () {
    const target = yield* nearestDirectory(dir)
    if (target === watched.target) return target === dir
    const previous = watched.watcher
    watched = { target: undefined, watcher: undefined }
    if (previous !== undefined) yield* closeWatch(previous)
    // The entry of `target` on the way to `dir`, when `dir` is not there.
    const step = target === dir ? undefined : path.join(target, path.relative(target, dir).split(path.sep)[0]!)
    const ignored = (file: string) => {
      const absolute = path.resolve(file)
      return step !== undefined && absolute !== target && absolute !== step
    }
    const onChange = (file: string) => {
      const absolute = path.resolve(file)
      if (absolute === target || absolute === step) options.onPath()
      else options.onEntry(absolute)
    }
    watched = { target, watcher: yield* openWatch([target], { ignored, onChange, onError: options.onError }) }
    return target === dir
  })
  yield* follow
  return { follow } satisfies CertificateDirWatch
})
