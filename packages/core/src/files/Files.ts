import type {
  FileList,
  FileNotFound,
  FileNotRegular,
  FileOperationTimedOut,
  FilePreconditionFailed,
  FileSystemFailed,
  FileTooLarge,
  FileType,
  FileValidationResult,
  FileWriteBusy,
  FileWritten,
  InvalidYaml,
  RateLimited,
  UnsafePath,
  ValidationFailed,
  ValidationUnavailable
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * What a file must be for a write to go ahead (HTTP's `If-Match` / `If-None-Match`, with revisions as
 * {@link FileContent} gives them). Both absent: the write goes ahead whatever the file holds.
 */
export interface WritePrecondition {
  /** Only if the file exists at one of these revisions; `"any"`: only if it exists. */
  readonly ifMatch?: "any" | ReadonlyArray<string> | undefined
  /** Only if the file does not exist (`"any"`: creating it), or exists at none of these revisions. */
  readonly ifNoneMatch?: "any" | ReadonlyArray<string> | undefined
}

/** A file's text and its revision (the SHA-256 of its bytes: what HTTP sends as the `ETag`). */
export interface FileContent {
  readonly content: string
  readonly revision: string
}

/**
 * A write's content still to come (a request body): `read` yields it, `maxBytes` is the most it can be (the length
 * the request announces, else its body limit). The write counts `maxBytes` in the bytes its queue may hold before it
 * runs `read`, so content a full queue refuses is never received, let alone held.
 */
export interface PendingContent<E> {
  readonly maxBytes: number
  readonly read: Effect.Effect<string, E>
}

/** What a write did, as the client is told, and the revision of the content it wrote. */
export interface FileWriteResult {
  readonly written: FileWritten
  readonly revision: string
}

/**
 * The editable files: the server config file and the route files. Nothing outside the config file's directory and
 * the routes directory is ever read or written; a write is validated first and atomic. The real one is
 * `FilesLive.layer`.
 */
export class Files extends Context.Service<
  Files,
  {
    /**
     * The config file's name and the route files; a routes directory that does not answer in time times out, one the
     * server cannot read (permission denied, an I/O error) is `FileSystemFailed`; a missing one holds no file.
     */
    readonly list: Effect.Effect<FileList, FileOperationTimedOut | FileSystemFailed>
    /**
     * The file's text and revision; only regular files are read (never a FIFO or a directory named like one). A
     * route file is proven, once open, to be the file its name was checked as (inside the routes directory, not the
     * config file), else `UnsafePath`: a link swapped in between is not followed out.
     */
    readonly read: (
      type: FileType,
      filename: string
    ) => Effect.Effect<
      FileContent,
      FileNotFound | UnsafePath | FileNotRegular | FileTooLarge | FileOperationTimedOut | FileSystemFailed
    >
    /**
     * Validates `content` (as part of the whole configuration), writes it atomically, then reloads. With a
     * `precondition`, only if the file is still what the writer read: checked under the lock that orders writes, and
     * again just before the new file is put in place. A write that cannot take that lock in time (the one before it
     * stuck on the disk) fails with `FileWriteBusy`, one that would queue past the bytes the queue may hold with
     * `RateLimited` (content still to come is counted at its `maxBytes` before it is read, and refused unread);
     * content larger than any file read is `FileTooLarge`.
     */
    readonly write: <E = never>(
      type: FileType,
      filename: string,
      content: string | PendingContent<E>,
      precondition?: WritePrecondition
    ) => Effect.Effect<
      FileWriteResult,
      | E
      | FileNotFound
      | FilePreconditionFailed
      | UnsafePath
      | FileNotRegular
      | FileTooLarge
      | FileOperationTimedOut
      | FileWriteBusy
      | RateLimited
      | FileSystemFailed
      | InvalidYaml
      | ValidationFailed
      | ValidationUnavailable
    >
    readonly validate: (
      type: FileType,
      content: string
    ) => Effect.Effect<FileValidationResult, InvalidYaml | ValidationFailed | ValidationUnavailable>
    /**
     * `validate` answered as the JSON body of its `FileValidationResult`, rendered for a large route file on the
     * validation worker thread with the validation (see `RouteValidator.validateJson`).
     */
    readonly validateJson: (
      type: FileType,
      content: string
    ) => Effect.Effect<string, InvalidYaml | ValidationFailed | ValidationUnavailable>
  }
>()("@gatehouse-edge/core/Files") {}
