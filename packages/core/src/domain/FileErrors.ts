import { Schema } from "effect"
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
