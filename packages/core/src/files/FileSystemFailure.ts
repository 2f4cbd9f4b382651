import * as Data from "effect/Data"

// What each system error code means, said for a person; the code itself follows in parentheses.
const reasons: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ELOOP: "too many levels of symbolic links",
  EIO: "an input/output error",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  EBUSY: "the file is busy",
  ETXTBSY: "the file is busy"
}

/**
 * A file system call failed for a reason other than the file's absence. It keeps the error code alone (ENOSPC,
 * EACCES, ...), never the path or the system's message, so what it says can reach a client.
 */
export class FileSystemFailure extends Data.TaggedError("FileSystemFailure")<{ readonly code: string }> {
  /** The failure of a rejected `fs` call. */
  static of(error: unknown): FileSystemFailure {
    const code = (error as { readonly code?: unknown } | null)?.code
    return new FileSystemFailure({ code: typeof code === "string" ? code : "EUNKNOWN" })
  }

  /** What went wrong, for a message: `no space left on the device (ENOSPC)`. */
  get reason(): string {
    return `${reasons[this.code] ?? "a file system error"} (${this.code})`
  }
}
