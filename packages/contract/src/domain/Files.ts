import * as Schema from "effect/Schema"
import { Route } from "./Route.js"
import type { Scope } from "./Scope.js"

/**
 * The largest editable file, in bytes (the YAML parser's own limit): larger files are neither read nor written
 * through the API, and a file write's request body may be this large, whatever the server's other bodies may be.
 */
export const maxFileBytes = 8 * 1024 * 1024

/** The two kinds of editable files: the server config and route files. */
export const FileType = Schema.Literals(["config", "routes"]).annotate({ identifier: "FileType" })
export type FileType = typeof FileType.Type

/**
 * The scope reading or writing a file of `type` needs. The config file is admin's alone: it holds the users'
 * password hashes and the OIDC and DNS secrets, and its `auth` section decides who is admin, so `files:read` would
 * let a viewer read every secret and `files:write` would let an operator make itself admin.
 */
export const fileAccessScope = (type: FileType, access: "read" | "write"): Scope =>
  type === "config" ? "admin" : `files:${access}`

/** A route file the server loads whose name the API cannot address, and why (renamed on disk, it can be edited). */
export const NotEditableFile = Schema.Struct({
  filename: Schema.String,
  problem: Schema.String
}).annotate({ identifier: "NotEditableFile" })
export type NotEditableFile = typeof NotEditableFile.Type

/**
 * The editable files, by kind, as names relative to their directory. `not_editable` (present only when there are
 * any) lists the route files that are loaded but cannot be read or written through the API, so none goes unseen.
 */
export const FileList = Schema.Struct({
  config: Schema.Array(Schema.String),
  routes: Schema.Array(Schema.String),
  not_editable: Schema.optionalKey(Schema.Array(NotEditableFile))
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
