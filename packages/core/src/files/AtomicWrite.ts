import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"

/** Whether a directory entry is a temp file of {@link writeFileAtomic} (`.<name>.<12 hex digits>.tmp`). */
export const isStaleTempFile = (name: string): boolean => /^\..+\.[0-9a-f]{12}\.tmp$/.test(name)

// Where the content goes: the file a symlink points to (the link stays a link), else `target` itself.
const realFileOf = (target: string) =>
  Effect.tryPromise(() => fs.realpath(target)).pipe(Effect.orElseSucceed(() => target))

// The permissions of the file being replaced, kept by its replacement (a 0600 config stays 0600); 0644 for a new one.
const modeOf = (file: string) =>
  Effect.tryPromise(() => fs.stat(file)).pipe(
    Effect.map((stats) => stats.mode & 0o7777),
    Effect.orElseSucceed(() => 0o644)
  )

/**
 * Replaces `target` with `content` so that a reader (or a crash) sees either the old file or the new one, never a
 * mix: write a temp file in the same directory, fsync it, rename it over the target, then fsync the directory so
 * the rename itself is durable. The temp file is removed if anything fails. A symlink is written through (the file
 * it points to is replaced, the link stays). `mode` is the new file's permissions: those of the file it replaces
 * unless given (0600 for a private key), 0644 for a new file.
 */
export const writeFileAtomic = (
  target: string,
  content: string,
  options: { readonly mode?: number } = {}
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const file = yield* realFileOf(target)
    const mode = options.mode ?? (yield* modeOf(file))
    const dir = path.dirname(file)
    const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)
    const write = Effect.acquireUseRelease(
      Effect.tryPromise(() => fs.open(temp, "wx", mode)),
      (handle) =>
        Effect.andThen(
          // Exactly `mode`: the one given to open is narrowed by the process's umask.
          Effect.tryPromise(() => handle.chmod(mode)),
          Effect.andThen(
            Effect.tryPromise(() => handle.writeFile(content, "utf8")),
            Effect.tryPromise(() => handle.sync())
          )
        ),
      (handle) => Effect.promise(() => handle.close())
    ).pipe(
      Effect.andThen(Effect.tryPromise(() => fs.rename(temp, file))),
      Effect.tapCause(() => Effect.promise(() => fs.rm(temp, { force: true })))
    )
    const syncDir = Effect.acquireUseRelease(
      Effect.tryPromise(() => fs.open(dir, "r")),
      (handle) => Effect.tryPromise(() => handle.sync()),
      (handle) => Effect.promise(() => handle.close())
    )
    yield* Effect.orDie(Effect.andThen(write, syncDir))
  })
