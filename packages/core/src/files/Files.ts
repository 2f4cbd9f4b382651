import type {
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
  UnsafePath,
  ValidationFailed,
  ValidationUnavailable
} from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * The editable files: the server config file and the route files. Nothing outside the config file's directory and
 * the routes directory is ever read or written; a write is validated first and atomic. The real one is
 * `FilesLive.layer`.
 */
export class Files extends Context.Service<
  Files,
  {
    readonly list: Effect.Effect<FileList>
    /** The file's text; only regular files are read (never a FIFO or a directory named like one). */
    readonly read: (
      type: FileType,
      filename: string
    ) => Effect.Effect<
      string,
      FileNotFound | UnsafePath | FileNotRegular | FileTooLarge | FileOperationTimedOut | FileSystemFailed
    >
    /** Validates `content` (as part of the whole configuration), writes it atomically, then reloads. */
    readonly write: (
      type: FileType,
      filename: string,
      content: string
    ) => Effect.Effect<
      FileWritten,
      | FileNotFound
      | UnsafePath
      | FileNotRegular
      | FileOperationTimedOut
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
