import { type FSWatcher, watch } from "chokidar"
import * as Effect from "effect/Effect"

/** What a {@link openWatch} follows and whom it tells. */
export interface FileWatchOptions {
  /** Entries left alone: each watched file costs an inotify watch, and a watched directory may be a busy one. */
  readonly ignored: (file: string) => boolean
  /** Any change (added, changed, removed) of a path that is not ignored. */
  readonly onChange: (file: string) => void
  /**
   * A path chokidar cannot watch (EACCES, ENOSPC once inotify watches run out, ELOOP): without a listener its
   * "error" would kill the process. The other paths are still watched.
   */
  readonly onError: (error: unknown) => void
}

/**
 * Watches the entries of `paths` (not below them), from the moment it succeeds: it waits for chokidar's "ready", so a
 * change made right after is never missed. Interrupted before that, the watch is closed; after, {@link closeWatch}.
 */
export const openWatch = (paths: ReadonlyArray<string>, options: FileWatchOptions): Effect.Effect<FSWatcher> =>
  Effect.callback<FSWatcher>((resume) => {
    const watcher = watch([...paths], { ignoreInitial: true, depth: 0, ignored: options.ignored })
    watcher.on("all", (_event, file) => options.onChange(file))
    watcher.on("error", options.onError)
    watcher.once("ready", () => resume(Effect.succeed(watcher)))
    return Effect.promise(() => watcher.close())
  })

/** Stops a watch of {@link openWatch}. */
export const closeWatch = (watcher: FSWatcher): Effect.Effect<void> => Effect.promise(() => watcher.close())
