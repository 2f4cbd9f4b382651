import { Schema } from "effect"

/** The two kinds of editable files: the server config and route files. */
export const FileType = Schema.Literals(["config", "routes"]).annotate({ identifier: "FileType" })
export type FileType = typeof FileType.Type

/** The editable files, by kind, as names relative to their directory. */
export const FileList = Schema.Struct({
  config: Schema.Array(Schema.String),
  routes: Schema.Array(Schema.String)
}).annotate({ identifier: "FileList" })
export type FileList = typeof FileList.Type
