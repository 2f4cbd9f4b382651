import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import type { FSWatcher } from "chokidar"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { closeWatch, openWatch } from "./FileWatch.js"

/** What a {@link watchFollowedDir} watches and whom it tells. */
export interface FollowedDirWatchOptions {
  /**
   * The entries of the directory watched, by name (route files; the config file): every other one is left alone,
   * as each watched file costs an inotify watch and the directory may be a busy one (`/etc`).
   */
  readonly isEntry: (name: string) => boolean
  /** An entry of the directory was added, changed or removed. */
  readonly onEntry: (file: string) => void
  /** The directory's own entry in its parent changed: it was removed, created, renamed away or replaced. */
  readonly onDirectory: () => void
  readonly onError: (error: unknown) => void
}

/** The watch of a directory that follows the directory found at its path, whichever one that is. */
export interface FollowedDirWatch {
  /**
   * Moves the watch to the directory now at the path when it is another one than the one watched (re-created,
   * swapped in by a rename, a symbolic link pointed elsewhere), or drops it when there is none; the parent's watch
   * likewise, to the parent now at its path. Whether there is a directory.
   */
  readonly follow: Effect.Effect<boolean>
}

// Device and inode: a directory renamed into place has the same path but another identity (one removed and made
// again at once may get the freed inode back, which the parent's watch tells). Read as bigints, as inode numbers
// may not fit a double.
const identityOf = (dir: string): Effect.Effect<string | undefined> =>
  Effect.tryPromise(() => fsp.stat(dir, { bigint: true })).pipe(
    Effect.map((stat) => (stat.isDirectory() ? `${stat.dev}:${stat.ino}` : undefined)),
    Effect.orElseSucceed(() => undefined)
  )

/**
 * The directory's parent, watched for the directory's own name only: `onRenamed` when an entry of that name is
 * created, removed or renamed. The watch of the directory itself is bound to the directory it was opened on: it
 * sees nothing once that one is removed or renamed away, nor the one that takes its place. Not chokidar: it would
 * list the parent (`/etc`, say) again on every change of any of its entries. A parent that cannot be watched (gone,
 * EACCES) is `undefined`: the directory's own watch still works, as before there was this one.
 */
const openParentWatch = (
  parent: string,
  name: string,
  onRenamed: () => void,
  onError: (error: unknown) => void
): Effect.Effect<fs.FSWatcher | undefined> =>
  Effect.try({
    try: () => {
      const watcher = fs.watch(parent, (event, changed) => {
        // Some platforms do not say which entry changed.
        if (event === "rename" && (changed === null || changed === name)) onRenamed()
      })
      watcher.on("error", onError)
      return watcher
    },
    catch: (error) => error
  }).pipe(
    Effect.tapError((error) => Effect.sync(() => onError(error))),
    Effect.orElseSucceed(() => undefined)
  )

/**
 * Watches the entries of the directory `dir` (not below it) that `isEntry` names, and the directory itself: its
 * parent is watched for the directory's name, and {@link FollowedDirWatch.follow} moves the watch to whichever
 * directory is at the path (a deploy that replaces the routes directory, or the config file's, or the tree they are
 * in). Stops watching when the scope closes.
 */
export const watchFollowedDir = Effect.fnUntraced(function* (dir: string, options: FollowedDirWatchOptions) {
  const ignored = (file: string) => {
    const absolute = path.resolve(file)
    return absolute !== dir && !(path.dirname(absolute) === dir && options.isEntry(path.basename(absolute)))
  }
  let watched: { readonly identity: string | undefined; readonly watcher: FSWatcher | undefined } = {
    identity: undefined,
    watcher: undefined
  }
  // The parent's watch is bound to the parent it was opened on too: a parent made again (a deploy that replaces
  // the whole config tree) is watched again by `follow`, by its identity as the directory's own watch is.
  let parentWatched: { readonly identity: string | undefined; readonly watcher: fs.FSWatcher | undefined } = {
    identity: undefined,
    watcher: undefined
  }
  yield* Effect.addFinalizer(() =>
    Effect.andThen(
      Effect.sync(() => parentWatched.watcher?.close()),
      watched.watcher === undefined ? Effect.void : closeWatch(watched.watcher)
    )
  )
  // The identity alone cannot tell: a directory removed and made again at once often gets the inode just freed.
  let renamed = false
  const parent = path.dirname(dir)
  // `reopen`: watched afresh even when its identity is unchanged (see `moveWatch`).
  const followParent = Effect.fnUntraced(function* (reopen: boolean) {
    if (parent === dir) return
    const identity = yield* identityOf(parent)
    const unchanged =
      identity === parentWatched.identity && (identity === undefined || parentWatched.watcher !== undefined)
    if (unchanged && !reopen) return
    parentWatched.watcher?.close()
    parentWatched = { identity: undefined, watcher: undefined }
    if (identity === undefined) return
    const watcher = yield* openParentWatch(
      parent,
      path.basename(dir),
      () => {
        renamed = true
        options.onDirectory()
      },
      options.onError
    )
    parentWatched = { identity, watcher }
  })
  // One `follow` at a time: the reload and the watcher's look-out for a directory gone for good both call it.
  const oneAtATime = yield* Semaphore.make(1)

  const moveWatch = Effect.gen(function* () {
    // Both read before the new watch is opened: if the directory is replaced again in between, the next `follow`
    // moves again, rather than trusting a watch on the wrong directory.
    const moved = renamed
    renamed = false
    const identity = yield* identityOf(dir)
    const moving = moved || identity !== watched.identity
    // A directory that moves may have come with a new parent that got the old one's inode back (removed and made
    // again at once): its watch is opened afresh then, as the identity alone cannot tell.
    yield* followParent(moving && identity !== undefined)
    if (!moving) return identity !== undefined
    const previous = watched.watcher
    watched = { identity: undefined, watcher: undefined }
    // Closed first: chokidar shares one fs.watch per path, and the old one is bound to the directory that left.
    if (previous !== undefined) yield* closeWatch(previous)
    if (identity === undefined) return false
    watched = {
      identity,
      watcher: yield* openWatch([dir], { ignored, onChange: options.onEntry, onError: options.onError })
    }
    return true
  })
  const follow = oneAtATime.withPermits(1)(moveWatch)
  yield* follow
  return { follow } satisfies FollowedDirWatch
})
