import type * as https from "node:https"
import { request as httpsRequest } from "node:https"
import { gunzip } from "node:zlib"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { PinnedCertificateMismatch, UntrustedCertificate } from "./PveTls.js"

/** One call to the Proxmox VE API, below the envelope: method, path under `/api2/json`, query, form body, headers. */
export interface PveHttpRequest {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly query?: Readonly<Record<string, string>>
  readonly form?: Readonly<Record<string, string>>
  readonly headers?: Readonly<Record<string, string>>
}

/** What came back: status, reason phrase (PVE's error text) and the (decompressed) body. */
export interface PveHttpResponse {
  readonly status: number
  readonly reason: string
  readonly body: string
}

/** The API could not be reached or the connection broke before a whole answer arrived. */
export class PveConnectionFailed extends Data.TaggedError("PveConnectionFailed")<{ readonly reason: string }> {}

/** The server presented a certificate other than the pinned one; nothing was sent to it. */
export class PveCertificateRejected extends Data.TaggedError("PveCertificateRejected")<{
  readonly expected: string
  readonly presented: string
}> {}

/** The server's certificate failed verification against the CA file (or the system's CAs); nothing was sent to it. */
export class PveCertificateUntrusted extends Data.TaggedError("PveCertificateUntrusted")<{
  readonly host: string
  readonly trustedBy: "ca_file" | "system"
  readonly detail: string
}> {}

/** Why a request got no answer. */
export type PveSendError = PveConnectionFailed | PveCertificateRejected | PveCertificateUntrusted

// Answers are JSON documents; a node's full resource list is well under this. More is a broken or hostile server.
const maxBodyBytes = 32 * 1024 * 1024

const describe = (error: Error & { readonly code?: string }): string =>
  error.code !== undefined && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message

/**
 * Sends one request over `agent` (keep-alive, TLS checked by the agent) and reads the whole answer. Interrupting
 * the effect aborts the request, which is how the caller's timeout frees the socket.
 */
export const sendPveRequest = (
  agent: https.Agent,
  baseUrl: URL,
  request: PveHttpRequest
): Effect.Effect<PveHttpResponse, PveSendError> =>
  Effect.callback<PveHttpResponse, PveSendError>((resume, signal) => {
    const url = new URL(`${baseUrl.pathname.replace(/\/$/, "")}/api2/json${request.path}`, baseUrl)
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value)
    const body = request.form === undefined ? undefined : new URLSearchParams(request.form).toString()
    const fail = (error: Error) => resume(Effect.fail(new PveConnectionFailed({ reason: describe(error) })))
    // `https.request` throws on any other scheme, and a throw here would be a defect that stops the cache's poller.
    // The config refuses such a URL; this keeps a URL from anywhere else a typed failure.
    if (url.protocol !== "https:") return fail(new Error(`${url.protocol}// is not supported: the API is HTTPS only`))
    const req = httpsRequest(
      url,
      {
        agent,
        method: request.method,
        signal,
        headers: {
          accept: "application/json",
          "accept-encoding": "gzip",
          ...(body === undefined
            ? {}
            : {
                "content-type": "application/x-www-form-urlencoded",
                "content-length": String(Buffer.byteLength(body))
              }),
          ...request.headers
        }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        let size = 0
        res.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size > maxBodyBytes) {
            res.destroy()
            fail(new Error(`answer larger than ${maxBodyBytes} bytes`))
            return
          }
          chunks.push(chunk)
        })
        res.on("error", fail)
        res.on("end", () => {
          const raw = Buffer.concat(chunks)
          const done = (text: string) =>
            resume(Effect.succeed({ status: res.statusCode ?? 0, reason: res.statusMessage ?? "", body: text }))
          // PVE gzips large answers on request, and the journal always.
          if (res.headers["content-encoding"] === "gzip" && raw.length > 0) {
            // The bound applies to what the answer inflates to, too: a small gzip can inflate to gigabytes.
            gunzip(raw, { maxOutputLength: maxBodyBytes }, (error, plain) =>
              error === null
                ? done(plain.toString("utf8"))
                : fail(
                    (error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE"
                      ? new Error(`answer larger than ${maxBodyBytes} bytes once decompressed`)
                      : error
                  )
            )
          } else {
            done(raw.toString("utf8"))
          }
        })
      }
    )
    req.on("error", (error) => {
      if (signal.aborted) return
      if (error instanceof PinnedCertificateMismatch) {
        return resume(Effect.fail(new PveCertificateRejected({ expected: error.expected, presented: error.presented })))
      }
      if (error instanceof UntrustedCertificate) {
        return resume(
          Effect.fail(
            new PveCertificateUntrusted({ host: error.host, trustedBy: error.trustedBy, detail: error.detail })
          )
        )
      }
      fail(error)
    })
    req.end(body)
  })
