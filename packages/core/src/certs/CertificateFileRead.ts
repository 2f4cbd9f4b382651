import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { describeKind } from "../files/FileKind.js"
import { FileSystemFailure } from "../files/FileSystemFailure.js"

/**
 * How long reading one certificate file (or `acme.ca_file`) may take: a file on a hung disk or network mount must
 * not hold the start (nothing would listen) or a reload forever. As long as the files service gives a file operation.
 */
export const CERTIFICATE_READ_TIMEOUT = Duration.seconds(10)

/** A certificate file that could not be read: its path as configured, and why in words for the operator. */
export class CertificateFileUnreadable extends Data.TaggedError("CertificateFileUnreadable")<{
  readonly path: string
  readonly reason: string
}> {
  override get message() {
    return `cannot read ${this.path}: ${this.reason}`
  }
}

const reasonOf = (error: unknown) => {
  const code = (error as { readonly code?: unknown } | null)?.code
  return code === "ENOENT" ? "no such file" : FileSystemFailure.of(error).reason
}

// Not blocking even if the file was swapped for a FIFO after the `stat`: opening one to read waits for a writer.
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK

/**
 * Reads a certificate, key or CA file as UTF-8 text. Only a regular file is read: a named pipe, a device or a socket
 * is refused from its `stat`, without opening it (opening a FIFO waits for a writer, in a thread of Node's pool that
 * nothing can free, which also keeps the process from exiting). The whole read is bounded by `timeout`.
 */
export const readCertificateFile = (
  file: string,
  timeout: Duration.Input = CERTIFICATE_READ_TIMEOUT
): Effect.Effect<string, CertificateFileUnreadable> =>
  Effect.gen(function* () {
    const unreadable = (error: unknown) => new CertificateFileUnreadable({ path: file, reason: reasonOf(error) })
    const stats = yield* Effect.tryPromise({ try: () => fs.stat(file), catch: unreadable })
    if (!stats.isFile()) {
      return yield* new CertificateFileUnreadable({ path: file, reason: `is ${describeKind(stats)}, not a file` })
    }
    return yield* Effect.tryPromise({
      // Interrupted (the timeout), the read stops at its next step and closes the file.
      try: (signal) => fs.readFile(file, { encoding: "utf8", flag: READ_FLAGS, signal }),
      catch: unreadable
    })
  }).pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(
          new CertificateFileUnreadable({
            path: file,
            reason: `no answer within ${Duration.format(Duration.fromInputUnsafe(timeout))} (a hung disk or network mount?)`
          })
        )
    })
  )
