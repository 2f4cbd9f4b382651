import { CsrfHeaderName } from "@gatehouse-edge/contract/api"
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
import { csrfTokenFromDocument } from "./CsrfToken.js"
import { WebSocketClosed } from "./WebSocketClosed.js"
import type { WebSocketConnection, WebSocketRequest } from "./WebSocketConnection.js"

/** Whether this runs in a browser page: there the page's `WebSocket` (with the page's cookies) must be used. */
export const isBrowserPage = (): boolean =>
  typeof (globalThis as { readonly document?: unknown }).document !== "undefined" &&
  typeof globalThis.WebSocket === "function"

const toWebSocketUrl = (url: string) => url.replace(/^http(s?):/i, "ws$1:")

/**
 * Opens a WebSocket with the browser's own `WebSocket`: the session cookie goes with the handshake (no header can
 * be set there). A browser does not show a refused handshake's response, so when the socket fails before opening
 * the same URL is fetched: a 4xx/5xx answer is the refusal, decoded into the endpoint's typed error as in Node
 * (the server checks everything before upgrading, so a plain GET is refused the same way).
 */
export const openBrowserWebSocket = <E>(
  request: WebSocketRequest<E>
): Effect.Effect<WebSocketConnection, E | HttpClientError.HttpClientError, Scope.Scope> =>
  Effect.gen(function* () {
    const httpRequest = HttpClientRequest.get(request.url)
    const incoming = yield* Queue.make<string, WebSocketClosed | Cause.Done>()
    const opened = yield* Deferred.make<boolean>()
    let open = false

    const ws = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const socket = new globalThis.WebSocket(toWebSocketUrl(request.url))
        socket.onopen = () => {
          open = true
          Deferred.doneUnsafe(opened, Exit.succeed(true))
        }
        socket.onmessage = (event) => Queue.offerUnsafe(incoming, String(event.data))
        socket.onclose = (event) => {
          if (!open) return Deferred.doneUnsafe(opened, Exit.succeed(false))
          if (event.code === 1000) Queue.endUnsafe(incoming)
          else
            Queue.failCauseUnsafe(incoming, Cause.fail(new WebSocketClosed({ code: event.code, reason: event.reason })))
        }
        return socket
      }),
      (socket) => Effect.sync(() => socket.close(1000))
    )

    if (!(yield* Deferred.await(opened))) {
      // Asked again as a plain GET to read why: with the CSRF header, which the GET of an endpoint that acts
      // (a renewal) needs under the session cookie, or the refusal read would be that 403 instead of the real one.
      const csrf = csrfTokenFromDocument()
      const response = yield* Effect.tryPromise({
        try: () =>
          fetch(request.url, {
            credentials: "include",
            ...(csrf === undefined ? {} : { headers: { [CsrfHeaderName]: csrf } })
          }),
        catch: (cause) =>
          new HttpClientError.HttpClientError({
            reason: new HttpClientError.TransportError({ request: httpRequest, cause, description: "WebSocket failed" })
          })
      })
      const decoded = HttpClientResponse.fromWeb(httpRequest, response)
      if (response.status >= 400) yield* request.refused(decoded)
      return yield* new HttpClientError.HttpClientError({
        reason: new HttpClientError.StatusCodeError({
          request: httpRequest,
          response: decoded,
          description: "the WebSocket upgrade failed"
        })
      })
    }

    const send = (text: string) =>
      Effect.suspend(() =>
        ws.readyState === globalThis.WebSocket.OPEN
          ? Effect.sync(() => ws.send(text))
          : Effect.fail(new WebSocketClosed({ code: 1006, reason: "the WebSocket is not open" }))
      )
    return { frames: Stream.fromQueue(incoming), send }
  })
