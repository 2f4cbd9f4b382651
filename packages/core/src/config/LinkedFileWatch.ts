import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import { type FollowedDirWatch, watchFollowedDir } from "./FollowedDirWatch.js"
import { type LinkChain, linkChain } from "./LinkChain.js"

/** What a {@link watchLinkedFile} tells. */
export interface LinkedFileWatchOptions {
  /** A link on the file's path, or the file it leads to, changed. */
  readonly onChange: () => void
  readonly onError: (error: unknown) => void
}

/** The watch of what a path leads to through symbolic links. */
export interface LinkedFileWatch {
  /**
   * Follows the path again: when it leads elsewhere than before (a link on it pointed elsewhere), the watches
   * move to the new links and file; the file's directory is followed too (see {@link FollowedDirWatch}).
   */
  readonly follow: Effect.Effect<void>
}

/**
 * A directory watched for some of its entries by name (the links in it). A link is never edited in place, only
 * made, removed or renamed over, which the directory's own watch reports; one that cannot be watched is reported
 * to `onError` and left out.
 */
const watchEntries = (dir: string, names: ReadonlySet<string>, options: LinkedFileWatchOptions) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        // Some platforms do not say which entry changed.
        const watcher = fs.watch(dir, (_event, name) => {
          if (name === null || names.has(name)) options.onChange()
        })
        watcher.on("error", options.onError)
        return watcher
      },
      catch: (error) => error
    }).pipe(
      Effect.tapError((error) => Effect.sync(() => options.onError(error))),
      Effect.orElseSucceed(() => undefined)
    ),
    (watcher) => Effect.sync(() => watcher?.close())
  )

// The watches of one chain: each directory that holds a link on the path, and the directory of the file it leads to.
const watchChain = Effect.fnUntraced(function* (chain: LinkChain, options: LinkedFileWatchOptions) {
  const byDir = new Map<string, Set<string>>()
  for (const link of chain.links) {
    const names = byDir.get(path.dirname(link)) ?? new Set<string>()
    byDir.set(path.dirname(link), names.add(path.basename(link)))
  }
  for (const [dir, names] of byDir) yield* watchEntries(dir, names, options)
  return yield* watchFollowedDir(path.dirname(chain.file), {
    isEntry: (name) => name === path.basename(chain.file),
    onEntry: options.onChange,
    onDirectory: options.onChange,
    onError: options.onError
  })
})

/**
 * Watches what `file` leads to through symbolic links (`etc/gatehouse.yml -> current/gatehouse.yml`,
 * `current -> v1`): the directories of the links on its path, for those links, and the file it leads to. A watch of
 * the path's own directory follows the link it finds there once, when it is opened: after `ln -sfn v2 current` it
 * still watches v1's file and misses v2's. A path without links is not watched here (nothing to follow). Stops
 * watching when the scope closes.
 */
export const watchLinkedFile = Effect.fnUntraced(function* (file: string, options: LinkedFileWatchOptions) {
  const outer = yield* Effect.scope
  // Each chain's watches live in a scope of their own, closed when the chain changes or with the outer one.
  let watched: { readonly key: string; readonly scope: Scope.Closeable; readonly dir?: FollowedDirWatch } | undefined

  const moveWatch = Effect.gen(function* () {
    const chain = yield* linkChain(file)
    const key = JSON.stringify(chain)
    if (watched?.key === key) return yield* watched.dir?.follow ?? Effect.void
    if (watched !== undefined) yield* Scope.close(watched.scope, Exit.void)
    const scope = yield* Scope.fork(outer)
    const dir = chain.links.length === 0 ? undefined : yield* Scope.provide(scope)(watchChain(chain, options))
    watched = { key, scope, ...(dir === undefined ? {} : { dir }) }
  })
  yield* moveWatch
  // One at a time: the watches of one chain are closed before the next are opened.
  const oneAtATime = yield* Semaphore.make(1)
  return { follow: oneAtATime.withPermits(1)(Effect.asVoid(moveWatch)) } satisfies LinkedFileWatch
})
