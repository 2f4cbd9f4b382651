import * as fs from "node:fs/promises"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

// What an operator can act on, instead of `ENOENT` or "An error occurred in Effect.try".
const reasons: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "is a directory, not a file",
  ENOTDIR: "a parent of the path is not a directory",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "too many levels of symbolic links"
}

/** A file that could not be read: its path as given, the system's error code, and a sentence for the operator. */
export class FileUnreadable extends Data.TaggedError("FileUnreadable")<{
  readonly path: string
  readonly code: string | undefined
  readonly reason: string
}> {
  override get message() {
    return `${this.path}: ${this.reason}`
  }
}

const unreadable = (file: string, error: unknown): FileUnreadable => {
  const code =
    typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
      ? error.code
      : undefined
  const reason = (code === undefined ? undefined : reasons[code]) ?? code ?? String(error)
  return new FileUnreadable({ path: file, code, reason })
}

/** Reads a UTF-8 text file; a failure says why in words ("no such file", "is a directory") with the path. */
export const readTextFile = (file: string): Effect.Effect<string, FileUnreadable> =>
  Effect.tryPromise({ try: () => fs.readFile(file, "utf8"), catch: (error) => unreadable(file, error) })
