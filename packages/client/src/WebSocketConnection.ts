import type { IncomingMessage } from "node:http"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { WebSocket } from "ws"
import { isBrowserPage, openBrowserWebSocket } from "./BrowserWebSocket.js"
import { upgradeRefusal } from "./UpgradeRefusal.js"
import { WebSocketClosed } from "./WebSocketClosed.js"

/** What {@link openWebSocket} connects to, and how it reads a refused upgrade. */
export interface WebSocketRequest<E> {
  /** `http(s)://` URL of the endpoint (the scheme is switched to `ws(s)://`). */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /**
   * Decodes the HTTP response of a refused upgrade into the endpoint's typed error, exactly as the plain HTTP call
   * would (e.g. `HttpApiClient.decodeResponse`). Succeeding means the server answered without upgrading.
   */
  readonly refused: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, E>
  /** Frames buffered for a slow consumer before the socket stops reading (so TCP pushes back on the server). */
  readonly highWaterMark?: number | undefined
  /** Largest refusal body read, in bytes. */
  readonly maxRefusalBytes?: number | undefined
  /**
   * How long the upgrade may take, from connecting to the server's answer (default 30 s). A server that accepts
   * the connection and never answers (hung, or not an HTTP server) would otherwise hold the stream for good.
   */
  readonly handshakeTimeoutMs?: number | undefined
  /**
   * How long an open socket may stay silent — no frame, no ping — before it is taken for dead and the stream fails
   * with 1006 (default 75 s: the server pings every 30 s). A connection whose network vanished without a FIN or a
   * reset would otherwise hold the stream, and a CLI follow, for good. `0`: never.
   */
  readonly silenceTimeoutMs?: number | undefined
  /** In a browser page: characters of unread frames held before the stream fails (see `BrowserWebSocket`). */
  readonly maxQueuedChars?: number | undefined
  /**
   * A plain GET of the endpoint acts (starts a renewal): in a browser page, a failed upgrade is then not asked
   * again as a GET to learn why (see `BrowserWebSocket`).
   */
  readonly plainGetActs?: boolean | undefined
}

/** An open WebSocket: the server's text frames and a way to send frames. Closed when its scope closes. */
export interface WebSocketConnection {
  /**
   * The server's text frames: ends when the server closes with 1000, fails with {@link WebSocketClosed} on any
   * other close. Consume it at most once.
   */
  readonly frames: Stream.Stream<string, WebSocketClosed>
  /** Sends one text frame; waits until it is written. Fails when the socket is no longer open. */
  readonly send: (text: string) => Effect.Effect<void, WebSocketClosed>
}

type Handshake =
  | { readonly _tag: "Open" }
  | { readonly _tag: "Refused"; readonly status: number; readonly headers: Headers; readonly body: Buffer }
  | { readonly _tag: "Failed"; readonly cause: unknown }

const DEFAULT_HIGH_WATER_MARK = 256
const DEFAULT_MAX_REFUSAL_BYTES = 1024 * 1024
const DEFAULT_HANDSHAKE_TIMEOUT_MS = 30_000
const DEFAULT_SILENCE_TIMEOUT_MS = 75_000
const CLOSE_HANDSHAKE_TIMEOUT = "2 seconds"

const toWebSocketUrl = (url: string) => url.replace(/^http(s?):/i, "ws$1:")

// As `fetch` does for the plain calls: surrounding whitespace is not part of a header value (an API key read from a
// file or an environment variable with its newline), where `ws` would throw on it.
const trimHeaderValues = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "")])
  )

const headersOf = (message: IncomingMessage): Headers => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  return headers
}

const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown, description: string) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.TransportError({ request, cause, description })
  })

// Closes normally and waits for the server's close frame; a peer that does not answer is cut off.
const closeSocket = (ws: WebSocket) =>
  Effect.callback<void>((resume) => {
    if (ws.readyState === WebSocket.CLOSED) return resume(Effect.void)
    ws.once("close", () => resume(Effect.void))
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate()
    else if (ws.readyState === WebSocket.OPEN) {
      // A paused socket would never read the server's close frame.
      ws.resume()
      ws.close(1000)
    }
  }).pipe(Effect.timeoutOrElse({ duration: CLOSE_HANDSHAKE_TIMEOUT, orElse: () => Effect.sync(() => ws.terminate()) }))

/**
 * Opens a WebSocket (the `ws` package, so it works on Node 20 without a global WebSocket; in a browser page, the
 * page's own, see `BrowserWebSocket`) and waits for the
 * handshake. A refused upgrade fails with the endpoint's typed error decoded from the HTTP response; a connection
 * that cannot be made fails with an `HttpClientError` (TransportError), like the HTTP calls. The socket is closed
 * (1000, waiting for the server's answer) when the scope closes.
 */
export const openWebSocket: <E>(
  request: WebSocketRequest<E>
) => Effect.Effect<WebSocketConnection, E | HttpClientError.HttpClientError, Scope.Scope> = Effect.fn("openWebSocket")(
  function* <E>(request: WebSocketRequest<E>) {
    if (isBrowserPage()) return yield* openBrowserWebSocket(request)
    const httpRequest = HttpClientRequest.get(request.url)
    const highWaterMark = request.highWaterMark ?? DEFAULT_HIGH_WATER_MARK
    const maxRefusalBytes = request.maxRefusalBytes ?? DEFAULT_MAX_REFUSAL_BYTES
    const incoming = yield* Queue.make<string, WebSocketClosed | Cause.Done>()
    const handshake = yield* Deferred.make<Handshake>()
    const settle = (outcome: Handshake) => Deferred.doneUnsafe(handshake, Exit.succeed(outcome))

    let state: "connecting" | "open" | "refused" | "closed" = "connecting"
    let paused = false
    let lastError: Error | undefined

    // Restarted by every frame and ping. A socket paused for a slow consumer reads neither, so it is not judged.
    const silenceMs = request.silenceTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS
    let silence: NodeJS.Timeout | undefined
    const watchSilence = (socket: WebSocket) => {
      if (silenceMs <= 0 || !Number.isFinite(silenceMs)) return
      silence = setTimeout(() => {
        if (paused) return silence?.refresh()
        lastError = new Error(`the server sent nothing, not even a ping, for ${silenceMs} ms`)
        socket.terminate()
      }, silenceMs)
      // The socket keeps the process alive while it is open; this timer must not do so after it.
      silence.unref()
    }

    const openSocket = () => {
      const socket = new WebSocket(toWebSocketUrl(request.url), {
        headers: trimHeaderValues(request.headers),
        handshakeTimeout: request.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS
      })
      socket.on("open", () => {
        state = "open"
        settle({ _tag: "Open" })
        watchSilence(socket)
      })
      socket.on("ping", () => silence?.refresh())
      // Text frames only in this protocol; anything else reaches the frame decoder and fails there.
      socket.on("message", (data) => {
        silence?.refresh()
        Queue.offerUnsafe(incoming, String(data))
        if (!paused && Queue.sizeUnsafe(incoming) >= highWaterMark) {
          paused = true
          socket.pause()
        }
      })
      socket.on("unexpected-response", (_req, response) => {
        state = "refused"
        const chunks: Array<Buffer> = []
        let size = 0
        response.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size <= maxRefusalBytes) chunks.push(chunk)
        })
        response.on("end", () =>
          settle({
            _tag: "Refused",
            status: response.statusCode ?? 0,
            headers: headersOf(response),
            body: Buffer.concat(chunks)
          })
        )
        response.on("error", (cause) => settle({ _tag: "Failed", cause }))
      })
      // Without a listener `ws` would throw; errors are reported through the handshake or the close below.
      socket.on("error", (error) => {
        lastError = error
        if (state === "connecting") {
          state = "closed"
          settle({ _tag: "Failed", cause: error })
        }
      })
      socket.on("close", (code, reason) => {
        clearTimeout(silence)
        if (state === "open") {
          state = "closed"
          if (code === 1000) Queue.endUnsafe(incoming)
          else {
            const text = reason.toString("utf8") || lastError?.message || ""
            Queue.failCauseUnsafe(incoming, Cause.fail(new WebSocketClosed({ code, reason: text })))
          }
        } else if (state === "connecting") {
          state = "closed"
          settle({ _tag: "Failed", cause: lastError ?? new Error(`closed with ${code} before the handshake`) })
        }
      })
      return socket
    }

    // `ws` throws at once on a URL it cannot use (no scheme: "localhost:8888") or a header value it refuses: a
    // failure like the plain call's, not a defect.
    const ws = yield* Effect.acquireRelease(
      Effect.try({
        try: openSocket,
        catch: (cause) => transportError(httpRequest, cause, "WebSocket connection failed")
      }),
      closeSocket
    )

    const outcome = yield* Deferred.await(handshake)
    if (outcome._tag === "Failed") {
      return yield* transportError(httpRequest, outcome.cause, "WebSocket connection failed")
    }
    if (outcome._tag === "Refused") {
      // `Response` only takes statuses 200–599 (and none of those may lack a body except the ones below).
      if (outcome.status < 200 || outcome.status > 599) {
        return yield* transportError(
          httpRequest,
          undefined,
          `unexpected status ${outcome.status} to a WebSocket upgrade`
        )
      }
      const nullBody = outcome.status === 204 || outcome.status === 205 || outcome.status === 304
      // A Blob, not the bytes: reading a body of bytes detaches their buffer, and the failure's cause, which holds
      // this response, is hashed afterwards (the hash reaches the body's source), which then throws.
      const response = HttpClientResponse.fromWeb(
        httpRequest,
        new Response(nullBody ? null : new Blob([new Uint8Array(outcome.body)]), {
          status: outcome.status,
          headers: outcome.headers
        })
      )
      return yield* upgradeRefusal(response, request.refused)
    }

    const frames = Stream.fromQueue(incoming).pipe(
      // The consumer took what was buffered: read from the socket again.
      Stream.tap(() =>
        Effect.sync(() => {
          if (paused && Queue.sizeUnsafe(incoming) < highWaterMark / 2) {
            paused = false
            ws.resume()
          }
        })
      )
    )
    const send = (text: string) =>
      Effect.callback<void, WebSocketClosed>((resume) => {
        if (ws.readyState !== WebSocket.OPEN) {
          return resume(Effect.fail(new WebSocketClosed({ code: 1006, reason: "the WebSocket is not open" })))
        }
        ws.send(text, (error) =>
          resume(error ? Effect.fail(new WebSocketClosed({ code: 1006, reason: error.message })) : Effect.void)
        )
      })
    return { frames, send }
  }
)
