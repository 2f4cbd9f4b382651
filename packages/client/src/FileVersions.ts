import type { GatehouseApi } from "@gatehouse-edge/contract/api"
import type { FileWritten } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import type * as HttpApiClient from "effect/http-api/HttpApiClient"
import type { EndpointError, EndpointOf, EndpointRequest, GroupCalls } from "./ApiCalls.js"

/** A file's text and the `ETag` naming its version: send it back as `If-Match` to write the file. */
export interface FileVersion {
  readonly content: string
  /** Undefined only from a server that does not version files. */
  readonly etag: string | undefined
}

/** A write's answer and the `ETag` of what it wrote: the `If-Match` of the next write of the same file. */
export interface FileWriteVersion {
  readonly written: FileWritten
  readonly etag: string | undefined
}

type Read = EndpointOf<"files", "read">
type Write = EndpointOf<"files", "write">

/**
 * The `files` group, plus the calls that carry the file's version: an editor reads with `readWithEtag`, then
 * writes with `headers: { "if-match": etag }` and gets `FilePreconditionFailed` (412) instead of overwriting an
 * edit made meanwhile; `writeWithEtag` answers the version it wrote, for the next save.
 */
export type FileCalls = GroupCalls<"files"> & {
  readonly readWithEtag: (request: EndpointRequest<Read>) => Effect.Effect<FileVersion, EndpointError<Read>>
  readonly writeWithEtag: (request: EndpointRequest<Write>) => Effect.Effect<FileWriteVersion, EndpointError<Write>>
}

/** {@link FileCalls} over the derived client (for the response's `ETag`) and the wrapped calls. */
export const fileCalls = (api: HttpApiClient.ForApi<typeof GatehouseApi>, calls: GroupCalls<"files">): FileCalls => ({
  ...calls,
  readWithEtag: (request) =>
    Effect.map(api.files.read({ ...request, responseMode: "decoded-and-response" }), ([content, response]) => ({
      content,
      etag: response.headers.etag
    })),
  writeWithEtag: (request) =>
    Effect.map(
      api.files.write({ ...request, headers: request.headers ?? {}, responseMode: "decoded-and-response" }),
      ([written, response]) => ({ written, etag: response.headers.etag })
    )
})
