import type { Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import { FileSystemFailure } from "./FileSystemFailure.js"

/** What a path names, found without opening it: a regular file and its size, nothing, or something else. */
export type FileKind =
  | { readonly _tag: "File"; readonly size: number }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Other"; readonly kind: string }

/** How to name a non-regular file in a message. */
export const describeKind = (stats: Stats): string =>
  stats.isDirectory()
    ? "a directory"
    : stats.isFIFO()
      ? "a named pipe (FIFO)"
      : stats.isSocket()
        ? "a socket"
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? "a device"
          : "not a regular file"

/**
 * The kind of `file` (following symlinks). `stat` never blocks on a FIFO or device, unlike opening it. A failure
 * other than absence (permission denied on a directory, a symlink loop) is a {@link FileSystemFailure}.
 */
export const fileKind = (file: string): Effect.Effect<FileKind, FileSystemFailure> =>
  Effect.tryPromise({ try: () => fs.stat(file), catch: (error) => error as NodeJS.ErrnoException }).pipe(
    Effect.map(
      (stats): FileKind =>
        stats.isFile() ? { _tag: "File", size: stats.size } : { _tag: "Other", kind: describeKind(stats) }
    ),
    Effect.catch((error) =>
      error.code === "ENOENT" || error.code === "ENOTDIR"
        ? Effect.succeed<FileKind>({ _tag: "Missing" })
        : Effect.fail(FileSystemFailure.of(error))
    )
  )
