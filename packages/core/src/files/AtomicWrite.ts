import { randomBytes } from "node:crypto"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { FileSystemFailure } from "./FileSystemFailure.js"
import { type FileIdentity, sameFile } from "./SafePaths.js"

// A temp file is always a new file, created by this write: never one that exists, never through a symbolic link.
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

const TEMP_FILE = /^\.(.+)\.[0-9a-f]{12}\.tmp$/

/** Whether a directory entry is a temp file of {@link writeFileAtomic} (`.<name>.<12 hex digits>.tmp`). */
export const isStaleTempFile = (name: string): boolean => TEMP_FILE.test(name)

/** The name of the file a temp file of {@link writeFileAtomic} was written for, if it is one. */
export const tempFileFor = (name: string): string | undefined => TEMP_FILE.exec(name)?.[1]

// Where the content goes, resolved once and written by that path from then on: the file a symlink points to (the
// link stays a link), else `target` in its directory's real path, else `target` itself.
const realFileOf = (target: string) =>
  Effect.tryPromise(() => fs.realpath(target)).pipe(
    Effect.catch(() =>
      Effect.tryPromise(() => fs.realpath(path.dirname(target))).pipe(
        Effect.map((dir) => path.join(dir, path.basename(target)))
      )
    ),
    Effect.orElseSucceed(() => target)
  )

const isLink = (file: string) =>
  Effect.tryPromise(() => fs.lstat(file)).pipe(
    Effect.map((stats) => stats.isSymbolicLink()),
    Effect.orElseSucceed(() => false)
  )

// Whether `file`, a path that had no symbolic link in it when it was resolved, still has none: its directory is still
// where it was, and it is not a link itself (a name not taken yet is none). Node has no `openat`/`renameat` to hold
// the directory open, so the path is checked again before each step that uses it.
const stillLinkFree = (file: string) =>
  Effect.gen(function* () {
    const dir = path.dirname(file)
    const realDir = yield* Effect.tryPromise(() => fs.realpath(dir)).pipe(Effect.orElseSucceed(() => undefined))
    return realDir === dir && !(yield* isLink(file))
  })

// The temp file at `temp` is the one this write created (not another put in its place, nor one reached through a
// directory swapped for a link) and still lies in the directory checked.
const tempStillOurs = (staged: StagedFile) =>
  Effect.gen(function* () {
    if (!(yield* stillLinkFree(staged.temp))) return false
    const stats = yield* Effect.tryPromise(() => fs.lstat(staged.temp)).pipe(Effect.orElseSucceed(() => undefined))
    return stats !== undefined && sameFile(stats, staged.identity)
  })

// What the replacement keeps of the file it replaces: its permissions (a 0600 config stays 0600) and its owner
// and group (a root:gatehouse 0640 config stays readable by its group). Nothing for a new file.
const previousOf = (file: string) =>
  Effect.tryPromise(() => fs.stat(file)).pipe(
    Effect.map((stats) => ({ mode: stats.mode & 0o7777, uid: stats.uid, gid: stats.gid })),
    Effect.orElseSucceed(() => undefined)
  )

const attempt = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: FileSystemFailure.of })

// Only root may give a file away; any owner may give it a group it is a member of. So a server that is not root
// keeps the group where it can and becomes the owner (as any editor's save does); what it could not keep is logged,
// never a reason to refuse the write.
const keepOwner = (handle: fs.FileHandle, file: string, previous: { readonly uid: number; readonly gid: number }) =>
  attempt(() => handle.chown(previous.uid, previous.gid)).pipe(
    Effect.catch(() =>
      attempt(() => handle.chown(-1, previous.gid)).pipe(
        Effect.andThen(
          Effect.logWarning(
            `${file} is now owned by this process's user, not uid ${previous.uid}: only root can keep it`
          )
        ),
        Effect.catch((failure) =>
          Effect.logWarning(
            `${file} is now owned by this process's user and group, not ${previous.uid}:${previous.gid} ` +
              `(${failure.reason})`
          )
        )
      )
    )
  )

/** A file's new content, written and synced next to it under a temp name, not yet in its place. */
export interface StagedFile {
  readonly temp: string
  /** The file replaced, by its path without symbolic links. */
  readonly file: string
  /** The temp file's device and inode, to know it again by its path. */
  readonly identity: FileIdentity
}

/** Where a file may be written, given the path it resolves to (through its symlinks) when its write is staged. */
export type WritePermitted = (file: string) => Effect.Effect<boolean>

/**
 * The first half of {@link writeFileAtomic}: writes `content` to a temp file in the target's directory and fsyncs
 * it. The target is untouched, and the temp file is removed when the scope closes unless {@link commitStaged} put
 * it in place, so this half may fail or be interrupted (a timeout) at any point and leave nothing behind.
 *
 * The target is resolved through its symlinks once, here, and `permitted` asked about that path (a route file: still
 * inside the routes directory), not about one resolved at an earlier check; from then on the write uses that path
 * and checks that no link has appeared on it (see {@link commitStaged}). The temp file is created exclusively
 * (`O_EXCL | O_NOFOLLOW`: never through a link, never an existing file), then known again by its inode in the
 * directory checked, so one created through a directory swapped for a link is refused. These refusals are a
 * {@link FileSystemFailure} (`FileSystemFailure.swapped`).
 */
export const stageFile = (
  target: string,
  content: string,
  options: { readonly mode?: number; readonly permitted?: WritePermitted } = {}
): Effect.Effect<StagedFile, FileSystemFailure, Scope.Scope> =>
  Effect.gen(function* () {
    const file = yield* realFileOf(target)
    if (options.permitted !== undefined && !(yield* options.permitted(file))) {
      return yield* Effect.fail(FileSystemFailure.swapped())
    }
    // Resolved to a link: one that leads nowhere (realpath failed on it). Not a swap, and not written through.
    if (yield* isLink(file)) return yield* Effect.fail(FileSystemFailure.dangling())
    const previous = yield* previousOf(file)
    const mode = options.mode ?? previous?.mode
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)
    // After a rename the name is gone and this removes nothing.
    yield* Effect.addFinalizer(() => Effect.promise(() => fs.rm(temp, { force: true })))
    const identity = yield* Effect.acquireUseRelease(
      // A new file is created as any program creates one: 0666 narrowed by the process's umask.
      attempt(() => fs.open(temp, CREATE_NEW, mode ?? 0o666)),
      (handle) =>
        Effect.gen(function* () {
          const identity = yield* attempt(() => handle.stat())
          if (previous !== undefined) yield* keepOwner(handle, file, previous)
          // Exactly `mode`: the one given to open is narrowed by the umask. After the chown, which clears the
          // setuid and setgid bits.
          if (mode !== undefined) yield* attempt(() => handle.chmod(mode))
          yield* attempt(() => handle.writeFile(content, "utf8"))
          yield* attempt(() => handle.sync())
          return { dev: identity.dev, ino: identity.ino }
        }),
      (handle) => Effect.promise(() => handle.close())
    )
    const staged = { temp, file, identity }
    if (!(yield* tempStillOurs(staged))) return yield* Effect.fail(FileSystemFailure.swapped())
    return staged
  })

/**
 * The second half of {@link writeFileAtomic}: renames the staged file over the target (the moment the write is
 * made), then fsyncs the directory so the rename is durable. Not interruptible: once the rename is asked for, its
 * outcome is what the caller learns. A failed rename leaves the target as it was; a failed directory sync is only
 * logged, since the new content is in place and readers see it. Right before the rename, the target must still not
 * be a symbolic link, its directory still the one staged in, and the temp file still the one staged (else
 * `FileSystemFailure.swapped`, nothing replaced). The rename itself never follows a link: it replaces the name.
 */
export const commitStaged = (staged: StagedFile): Effect.Effect<void, FileSystemFailure> =>
  Effect.uninterruptible(
    Effect.gen(function* () {
      if (!((yield* stillLinkFree(staged.file)) && (yield* tempStillOurs(staged)))) {
        return yield* Effect.fail(FileSystemFailure.swapped())
      }
      yield* attempt(() => fs.rename(staged.temp, staged.file))
      const dir = path.dirname(staged.file)
      yield* Effect.acquireUseRelease(
        attempt(() => fs.open(dir, "r")),
        (handle) => attempt(() => handle.sync()),
        (handle) => Effect.promise(() => handle.close())
      ).pipe(
        Effect.catch((failure) =>
          Effect.logWarning(`${staged.file} was replaced, but its directory could not be synced: ${failure.reason}`)
        )
      )
    })
  )

/**
 * Replaces `target` with `content` so that a reader (or a crash) sees either the old file or the new one, never a
 * mix: write a temp file in the same directory, fsync it, rename it over the target, then fsync the directory so
 * the rename itself is durable. The temp file is removed if anything fails. A symlink is written through (the file
 * it points to is replaced, the link stays). The replacement keeps the owner and group of the file it replaces
 * (as far as the process may: see `keepOwner`). `mode` is the new file's permissions: those of the file it
 * replaces unless given (0600 for a private key); a new file without one gets 0666 less the process's umask.
 */
export const writeFileAtomic = (
  target: string,
  content: string,
  options: { readonly mode?: number; readonly permitted?: WritePermitted } = {}
): Effect.Effect<void, FileSystemFailure> =>
  Effect.scoped(Effect.flatMap(stageFile(target, content, options), commitStaged))
