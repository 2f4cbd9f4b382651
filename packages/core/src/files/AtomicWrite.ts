import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"

/** Whether a directory entry is a temp file of {@link writeFileAtomic} (`.<name>.<12 hex digits>.tmp`). */
export const isStaleTempFile = (name: string): boolean => /^\..+\.[0-9a-f]{12}\.tmp$/.test(name)

/**
 * Replaces `target` with `content` so that a reader (or a crash) sees either the old file or the new one, never a
 * mix: write a temp file in the same directory, fsync it, rename it over the target, then fsync the directory so
 * the rename itself is durable. The temp file is removed if anything fails. `mode` is the new file's permissions
 * (0644 unless given; 0600 for a private key).
 */
export const writeFileAtomic = (
  target: string,
  content: string,
  options: { readonly mode?: number } = {}
): Effect.Effect<void> => {
  const dir = path.dirname(target)
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`)
  const write = Effect.acquireUseRelease(
    Effect.tryPromise(() => fs.open(temp, "wx", options.mode ?? 0o644)),
    (handle) =>
      Effect.andThen(
        Effect.tryPromise(() => handle.writeFile(content, "utf8")),
        Effect.tryPromise(() => handle.sync())
      ),
    (handle) => Effect.promise(() => handle.close())
  ).pipe(
    Effect.andThen(Effect.tryPromise(() => fs.rename(temp, target))),
    Effect.tapCause(() => Effect.promise(() => fs.rm(temp, { force: true })))
  )
  const syncDir = Effect.acquireUseRelease(
    Effect.tryPromise(() => fs.open(dir, "r")),
    (handle) => Effect.tryPromise(() => handle.sync()),
    (handle) => Effect.promise(() => handle.close())
  )
  return Effect.orDie(Effect.andThen(write, syncDir))
}
