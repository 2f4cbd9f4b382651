import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as SchemaAST from "effect/SchemaAST"
import {
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
  MissingScope,
  maxFileBytes,
  RateLimited,
  toWireError,
  UnsafePath,
  ValidationFailed,
  ValidationQueueFull,
  ValidationTimedOut,
  ValidationWorkerFailed
} from "../domain/index.js"
import { takesBodiesUpTo } from "./BodyLimit.js"
import { FileQuery, FileWriteHeaders, YamlBody, YamlText } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

// The ETag a 200 carries: the version of the file's bytes, to send back as `If-Match`. Set by the handler (the
// body is the file, or the typed write answer), so declared here for OpenAPI only.
type Transform = NonNullable<Parameters<typeof OpenApi.annotations>[0]["transform"]>
const withEtag =
  (description: string): Transform =>
  (operation) => ({
    ...operation,
    responses: {
      ...operation.responses,
      "200": {
        ...operation.responses["200"],
        headers: { ETag: { description, schema: { type: "string" } } }
      }
    }
  })

// The write's conditions as OpenAPI header parameters, before its query's, with their schemas' descriptions (they
// are not the endpoint's declared headers: see FileWriteHeaders).
const withConditionHeaders: Transform = (operation) => ({
  ...operation,
  parameters: [
    ...Object.entries(FileWriteHeaders.fields).map(([name, field]) => ({
      name,
      in: "header",
      schema: { type: "string", description: SchemaAST.resolveDescription(field.ast) },
      required: false
    })),
    ...(operation.parameters ?? [])
  ]
})

/** The config file and route files, read and written safely inside the config directory. */
export class FilesApi extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.get("list", "/file/list", {
      success: FileList,
      error: [toWireError(FileOperationTimedOut), toWireError(FileSystemFailed)]
    })
      .annotateMerge(requires("files:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "List editable files",
          description:
            "`routes` are the route files the API can read and write. A route file the server loads whose name " +
            "the API cannot address (a `%`, a backslash, a control character; a symlink leading out of the " +
            "directory) is listed in `not_editable` with why, present only when there is one. A routes directory " +
            "that does not answer in time (a stuck disk or network file system) is 504 `FileOperationTimedOut`."
        })
      ),
    HttpApiEndpoint.get("read", "/file/content", {
      query: FileQuery,
      success: YamlText,
      error: [
        toWireError(FileNotFound),
        toWireError(UnsafePath),
        toWireError(FileNotRegular),
        toWireError(FileTooLarge),
        toWireError(FileOperationTimedOut),
        toWireError(FileSystemFailed),
        toWireError(MissingScope)
      ]
    })
      .annotateMerge(requires("files:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Read a file",
          description:
            "Raw bytes as application/yaml, with an `ETag` (a strong validator: it changes with any byte of the " +
            "file) to send back as `If-Match` when writing the file. The config file needs the `admin` scope: it " +
            "holds the users and secrets.",
          transform: withEtag("The version of the file read: send it as `If-Match` to write the file back")
        })
      ),
    HttpApiEndpoint.put("write", "/file/content", {
      query: FileQuery,
      payload: YamlBody,
      success: FileWritten,
      error: [
        toWireError(FileNotFound),
        toWireError(UnsafePath),
        toWireError(FileNotRegular),
        toWireError(FileTooLarge),
        toWireError(FileOperationTimedOut),
        toWireError(FileWriteBusy),
        toWireError(RateLimited),
        toWireError(FileSystemFailed),
        toWireError(FilePreconditionFailed),
        toWireError(InvalidYaml),
        toWireError(ValidationFailed),
        toWireError(ValidationQueueFull),
        toWireError(ValidationTimedOut),
        toWireError(ValidationWorkerFailed),
        toWireError(MissingScope)
      ]
    })
      .annotateMerge(requires("files:write"))
      // A file that can be read can be written back: its body may be as large as the largest file read.
      .annotateMerge(takesBodiesUpTo(maxFileBytes))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Write a file",
          description:
            "Validates, then writes atomically (temp file, fsync, rename) and triggers a reload. The config file " +
            "needs the `admin` scope: its `auth` section decides who is admin. Conditional, so that two editors " +
            "never overwrite each other's edit unseen: `If-Match` with the `ETag` of the read writes only if the " +
            "file is still that version (`*`: only if it exists), `If-None-Match: *` only if the file does not " +
            "exist yet (creating it); otherwise 412 `precondition_failed` and nothing is written. Without either " +
            "header the file is written whatever it holds. The answer's `ETag` is the version written. The body may " +
            `be as large as the largest file read (${maxFileBytes / (1024 * 1024)} MiB), whatever the limit of ` +
            "other requests. " +
            "Writes are made one at a time: a write that has waited 10 s behind one that has run 10 s (a stuck " +
            "disk) is refused with 503 `FileWriteBusy`, and one that would make the writes waiting hold more than " +
            "64 MiB with 429 `RateLimited`.",
          transform: (operation) =>
            withConditionHeaders(
              withEtag("The version of the file as written: the `If-Match` of the next write")(operation)
            )
        })
      ),
    HttpApiEndpoint.post("validate", "/file/validate", {
      query: { type: FileType },
      payload: YamlBody,
      success: FileValidationResult,
      error: [
        toWireError(InvalidYaml),
        toWireError(ValidationFailed),
        toWireError(ValidationQueueFull),
        toWireError(ValidationTimedOut),
        toWireError(ValidationWorkerFailed)
      ]
    })
      .annotateMerge(requires("files:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Validate a file without writing it",
          description:
            "A config file needs the `admin` scope, as reading it does: the environment variables it references are " +
            "read from the server's environment (a message never shows a value read from there)."
        })
      )
  )
  .middleware(Authorization) {}
