import { constants, type Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import { describeKind } from "./FileKind.js"
import { FileSystemFailure } from "./FileSystemFailure.js"

/** Why {@link readRegularFile} did not return the bytes. */
export type ReadRefusal =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "NotRegular"; readonly kind: string }
  | { readonly _tag: "TooLarge"; readonly size: number }
  | FileSystemFailure

/**
 * Reads a regular file's bytes without ever blocking: it is opened non-blocking (opening a FIFO for reading
 * would otherwise wait for a writer forever, holding one of libuv's four threads) and checked on the open handle,
 * so a file swapped for a FIFO between a check and the read is still refused. Files over `maxBytes` are refused
 * before any byte is read. Any other failure of the file system (permission denied, a symlink loop, an I/O error)
 * is a {@link FileSystemFailure}. `verify` is asked about the file opened before anything of it is told or read (its
 * kind, its size, its bytes): a read that may only reach some files refuses the others there, with its own error.
 */
export const readRegularFile = <E = never>(
  file: string,
  maxBytes: number,
  verify?: (handle: fs.FileHandle, stats: Stats) => Effect.Effect<void, E>
): Effect.Effect<Buffer, ReadRefusal | E> =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK),
      catch: (error) => error as NodeJS.ErrnoException
    }).pipe(
      Effect.catch((error) =>
        error.code === "ENOENT" || error.code === "ENOTDIR"
          ? Effect.fail<ReadRefusal>({ _tag: "Missing" })
          : error.code === "EISDIR"
            ? Effect.fail<ReadRefusal>({ _tag: "NotRegular", kind: "a directory" })
            : Effect.fail(FileSystemFailure.of(error))
      )
    ),
    (handle) =>
      Effect.gen(function* () {
        const stats = yield* Effect.tryPromise({ try: () => handle.stat(), catch: FileSystemFailure.of })
        if (verify !== undefined) yield* verify(handle, stats)
        if (!stats.isFile()) return yield* Effect.fail<ReadRefusal>({ _tag: "NotRegular", kind: describeKind(stats) })
        if (stats.size > maxBytes) return yield* Effect.fail<ReadRefusal>({ _tag: "TooLarge", size: stats.size })
        return yield* Effect.tryPromise({ try: () => handle.readFile(), catch: FileSystemFailure.of })
      }),
    (handle) => Effect.promise(() => handle.close())
  )
