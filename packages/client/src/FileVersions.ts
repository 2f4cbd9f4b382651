import type { FileWriteHeaders, GatehouseApi } from "@gatehouse-edge/contract/api"
import type { FileWritten } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpApiClient from "effect/http-api/HttpApiClient"
import type { EndpointError, EndpointOf, EndpointRequest, EndpointSuccess, GroupCalls } from "./ApiCalls.js"

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

/** A file write: the endpoint's request, and the conditions it is made on (`If-Match`, `If-None-Match`). */
export type FileWriteRequest = EndpointRequest<Write> & { readonly headers?: FileWriteHeaders | undefined }

/**
 * The `files` group, plus the calls that carry the file's version: an editor reads with `readWithEtag`, then
 * writes with `headers: { "if-match": etag }` and gets `FilePreconditionFailed` (412) instead of overwriting an
 * edit made meanwhile; `writeWithEtag` answers the version it wrote, for the next save.
 */
export type FileCalls = Omit<GroupCalls<"files">, "write"> & {
  readonly write: (request: FileWriteRequest) => Effect.Effect<EndpointSuccess<Write>, EndpointError<Write>>
  readonly readWithEtag: (request: EndpointRequest<Read>) => Effect.Effect<FileVersion, EndpointError<Read>>
  readonly writeWithEtag: (request: FileWriteRequest) => Effect.Effect<FileWriteVersion, EndpointError<Write>>
}

// The conditions of the file write a call makes. The contract does not declare them as the endpoint's headers (the
// derived client would then need `headers` on every write), so they reach the request through this reference.
const WriteConditions = Context.Reference<FileWriteHeaders>("@gatehouse-edge/client/FileWriteConditions", {
  defaultValue: () => ({})
})

/** Sends the conditions of the file write being made (see {@link fileCalls}) as its headers; other requests as is. */
export const withWriteConditions = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.mapRequestEffect(client, (request) =>
    Effect.map(Effect.service(WriteConditions), (conditions) =>
      Object.keys(conditions).length === 0 ? request : HttpClientRequest.setHeaders(request, conditions)
    )
  )

/** {@link FileCalls} over the derived client (for the response's `ETag` and the write's conditions). */
export const fileCalls = (api: HttpApiClient.ForApi<typeof GatehouseApi>, calls: GroupCalls<"files">): FileCalls => ({
  ...calls,
  write: ({ headers, ...request }) => Effect.provideService(api.files.write(request), WriteConditions, headers ?? {}),
  readWithEtag: (request) =>
    Effect.map(api.files.read({ ...request, responseMode: "decoded-and-response" }), ([content, response]) => ({
      content,
      etag: response.headers.etag
    })),
  writeWithEtag: ({ headers, ...request }) =>
    Effect.map(
      Effect.provideService(
        api.files.write({ ...request, responseMode: "decoded-and-response" }),
        WriteConditions,
        headers ?? {}
      ),
      ([written, response]) => ({ written, etag: response.headers.etag })
    )
})
