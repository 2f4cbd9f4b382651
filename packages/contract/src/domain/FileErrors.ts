import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"
import { FileType } from "./Files.js"

/** No such config or route file (404). */
export class FileNotFound extends ApiError<FileNotFound>()("FileNotFound", {
  code: "not_found",
  fields: { type: FileType, filename: Schema.String },
  message: (e) => `${e.type} file "${e.filename}" not found`
}) {}

/** A file name that would leave its directory: `..`, absolute paths, encoded variants, symlinks out (400). */
export class UnsafePath extends ApiError<UnsafePath>()("UnsafePath", {
  code: "invalid_argument",
  fields: { parameter: Schema.String, problem: Schema.String },
  message: (e) => `invalid ${e.parameter}: ${e.problem}`
}) {}

/** The name exists but is not a regular file (a directory, a FIFO, a socket, a device): never read or replaced (409). */
export class FileNotRegular extends ApiError<FileNotRegular>()("FileNotRegular", {
  code: "failed_precondition",
  fields: { type: FileType, filename: Schema.String, kind: Schema.String },
  message: (e) => `${e.type} file "${e.filename}" is ${e.kind}, not a regular file`
}) {}

/** The file is larger than any file the server reads (413). */
export class FileTooLarge extends ApiError<FileTooLarge>()("FileTooLarge", {
  code: "payload_too_large",
  fields: { type: FileType, filename: Schema.String, size_bytes: Schema.Int, limit_bytes: Schema.Int },
  message: (e) => `${e.type} file "${e.filename}" is ${e.size_bytes} bytes, over the limit of ${e.limit_bytes}`
}) {}

/**
 * A file operation did not finish in time (a stuck disk or network file system) and was abandoned (504). A write
 * abandoned before the new file was put in place left the file untouched; one abandoned while `replacing` it may
 * still put the whole new content in place (never part of it): read the file to know.
 */
/** What an operation was on: a file, or for `filename` "*" (a listing) the directory of its type. */
const subjectOf = (e: { readonly type: FileType; readonly filename: string }): string =>
  e.filename === "*" ? `the ${e.type} directory` : `${e.type} file "${e.filename}"`

export class FileOperationTimedOut extends ApiError<FileOperationTimedOut>()("FileOperationTimedOut", {
  code: "timeout",
  fields: { type: FileType, filename: Schema.String, operation: Schema.String, timeout_ms: Schema.Int },
  message: (e) => `${e.operation} of ${subjectOf(e)} did not finish within ${e.timeout_ms} ms`
}) {}

/**
 * The server's file system refused an operation on the file: no space left, permission denied, a read-only file
 * system, a symlink loop, ... (`problem` says which, with the system's code). A write that fails this way left the
 * file as it was (503).
 */
export class FileSystemFailed extends ApiError<FileSystemFailed>()("FileSystemFailed", {
  code: "unavailable",
  fields: { type: FileType, filename: Schema.String, operation: Schema.String, problem: Schema.String },
  message: (e) => `${e.operation} of ${subjectOf(e)} failed: ${e.problem}`
}) {}

/**
 * A conditional write (`If-Match` / `If-None-Match`) whose condition does not hold: the file changed since the
 * client read it (another edit came first), or it exists or is missing against what the client expected. Nothing
 * was written (412).
 */
export class FilePreconditionFailed extends ApiError<FilePreconditionFailed>()("FilePreconditionFailed", {
  code: "precondition_failed",
  fields: { type: FileType, filename: Schema.String, problem: Schema.String },
  message: (e) => `${e.type} file "${e.filename}" ${e.problem}; nothing was written`
}) {}

/**
 * A write that waited for the lock ordering file writes longer than `timeout_ms`: the write before it has not
 * finished (a stuck disk or network file system can hold it). Nothing was written; try again later (503).
 */
export class FileWriteBusy extends ApiError<FileWriteBusy>()("FileWriteBusy", {
  code: "unavailable",
  fields: { type: FileType, filename: Schema.String, timeout_ms: Schema.Int },
  message: (e) =>
    `${e.type} file "${e.filename}" was not written: another file write has not finished after ${e.timeout_ms} ms; ` +
    "try again later"
}) {}
