import * as Schema from "effect/Schema"
import { Route } from "./Route.js"

/** The two kinds of editable files: the server config and route files. */
export const FileType = Schema.Literals(["config", "routes"]).annotate({ identifier: "FileType" })
export type FileType = typeof FileType.Type

/** The editable files, by kind, as names relative to their directory. */
export const FileList = Schema.Struct({
  config: Schema.Array(Schema.String),
  routes: Schema.Array(Schema.String)
}).annotate({ identifier: "FileList" })
export type FileList = typeof FileList.Type

/** Body of a successful file validation; `routes` holds the normalized routes of a route file. */
export const FileValidationResult = Schema.Struct({
  valid: Schema.Literal(true),
  type: FileType,
  routes: Schema.optionalKey(Schema.Array(Route))
}).annotate({ identifier: "FileValidationResult" })
export type FileValidationResult = typeof FileValidationResult.Type

/** Body of a successful file write. */
export const FileWritten = Schema.Struct({
  message: Schema.String,
  type: FileType,
  filename: Schema.String,
  bytes: Schema.Int
}).annotate({ identifier: "FileWritten" })
export type FileWritten = typeof FileWritten.Type
