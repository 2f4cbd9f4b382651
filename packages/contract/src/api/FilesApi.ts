import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import {
  FileList,
  FileNotFound,
  FileNotRegular,
  FileOperationTimedOut,
  FileSystemFailed,
  FileTooLarge,
  FileType,
  FileValidationResult,
  FileWritten,
  InvalidYaml,
  MissingScope,
  toWireError,
  UnsafePath,
  ValidationFailed,
  ValidationQueueFull,
  ValidationTimedOut,
  ValidationWorkerFailed
} from "../domain/index.js"
import { FileQuery, YamlBody, YamlText } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** The config file and route files, read and written safely inside the config directory. */
export class FilesApi extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.get("list", "/file/list", { success: FileList })
      .annotateMerge(requires("files:read"))
      .annotateMerge(OpenApi.annotations({ summary: "List editable files" })),
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
            "Raw bytes as application/yaml. The config file needs the `admin` scope: it holds the users and secrets."
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
        toWireError(FileOperationTimedOut),
        toWireError(FileSystemFailed),
        toWireError(InvalidYaml),
        toWireError(ValidationFailed),
        toWireError(ValidationQueueFull),
        toWireError(ValidationTimedOut),
        toWireError(ValidationWorkerFailed),
        toWireError(MissingScope)
      ]
    })
      .annotateMerge(requires("files:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Write a file",
          description:
            "Validates, then writes atomically (temp file, fsync, rename) and triggers a reload. The config file " +
            "needs the `admin` scope: its `auth` section decides who is admin."
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
