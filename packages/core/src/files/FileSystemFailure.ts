import * as Data from "effect/Data"

// Not a system error: a write found its file, or the directory it was writing in, turned into a symbolic link (or
// leading somewhere else) between two of its steps, and stopped (see AtomicWrite).
const SWAPPED = "ELINKSWAP"
// Not a system error either: the file to write is a symbolic link to nothing. Writing through it could create a file
// wherever it points; replacing it would silently undo a link someone made. So it is refused, saying which it is.
const DANGLING = "EDANGLINGLINK"

// What each system error code means, said for a person; the code itself follows in parentheses.
const reasons: Readonly<Record<string, string>> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ELOOP: "too many levels of symbolic links",
  ENOTDIR: "a part of the path is not a directory",
  EIO: "an input/output error",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  EBUSY: "the file is busy",
  ETXTBSY: "the file is busy",
  [SWAPPED]: "the file or its directory was replaced by a symbolic link while it was written",
  [DANGLING]: "the file is a symbolic link to a file that does not exist"
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

  /** A write's file or directory changed into a symbolic link between its steps (see AtomicWrite). */
  static swapped(): FileSystemFailure {
    return new FileSystemFailure({ code: SWAPPED })
  }

  /** The file to write is a symbolic link whose target does not exist (see AtomicWrite). */
  static dangling(): FileSystemFailure {
    return new FileSystemFailure({ code: DANGLING })
  }

  /**
   * Whether this is a write's refusal of a symbolic link where none may be (swapped in, or leading nowhere): the
   * path the request named is refused, not the disk failing.
   */
  get isLinkRefusal(): boolean {
    return this.code === SWAPPED || this.code === DANGLING
  }

  /** What went wrong, for a message: `no space left on the device (ENOSPC)`. */
  get reason(): string {
    return `${reasons[this.code] ?? "a file system error"} (${this.code})`
  }
}
