import { CsrfHeaderName } from "@gatehouse-edge/contract/api"
import { ClientTooSlow, closeCodeOf } from "@gatehouse-edge/contract/domain"
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
import { upgradeRefusal } from "./UpgradeRefusal.js"
import { WebSocketClosed } from "./WebSocketClosed.js"
import type { WebSocketConnection, WebSocketRequest } from "./WebSocketConnection.js"

/** Whether this runs in a browser page: there the page's `WebSocket` (with the page's cookies) must be used. */
export const isBrowserPage = (): boolean =>
  typeof (globalThis as { readonly document?: unknown }).document !== "undefined" &&
  typeof globalThis.WebSocket === "function"

const toWebSocketUrl = (url: string) => url.replace(/^http(s?):/i, "ws$1:")

/**
 * Characters of frames a page may hold unread (~64 MiB as UTF-16). A browser's WebSocket cannot be paused, so the
 * server's frames pile up behind a consumer that stalls (a background tab, a slow renderer) until the tab runs out
 * of memory; past this the stream fails instead. One frame larger than this is still taken when nothing waits.
 */
export const MAX_QUEUED_CHARS = 32 * 1024 * 1024

/**
 * Opens a WebSocket with the browser's own `WebSocket`: the session cookie goes with the handshake (no header can
 * be set there). A browser does not show a refused handshake's response, so when the socket fails before opening
 * the same URL is fetched: a 4xx/5xx answer is the refusal, decoded into the endpoint's typed error as in Node
 * (the server checks everything before upgrading, so a plain GET is refused the same way). Not for an endpoint
 * whose plain GET acts (`plainGetActs`: a renewal): that GET would be the action itself, run a second time or run
 * where only the upgrade failed. Its failure, and one the GET cannot explain, is a `TransportError`.
 */
export const openBrowserWebSocket = <E>(
  request: WebSocketRequest<E>
): Effect.Effect<WebSocketConnection, E | HttpClientError.HttpClientError, Scope.Scope> =>
  Effect.gen(function* () {
    const httpRequest = HttpClientRequest.get(request.url)
    const upgradeFailed = (description: string, cause?: unknown) =>
      new HttpClientError.HttpClientError({
        reason: new HttpClientError.TransportError({ request: httpRequest, cause, description })
      })
    const incoming = yield* Queue.make<string, WebSocketClosed | Cause.Done>()
    const opened = yield* Deferred.make<boolean>()
    let open = false
    const maxQueuedChars = request.maxQueuedChars ?? MAX_QUEUED_CHARS
    let queuedChars = 0
    let gaveUp = false
    // A page may close only with 1000 or 3000-4999; the stream fails as the server fails a client too slow, 1008 and
    // its `ClientTooSlow` message first: so it is retried as that close is (`isSlowConsumerClose`), and a stream
    // asked to reconnect picks up again (events after the last one delivered) instead of failing.
    const tooSlow = (socket: WebSocket) => {
      gaveUp = true
      socket.onmessage = null
      socket.close(1000, "the page read frames too slowly")
      const tooSlowMessage = new ClientTooSlow({ queued_bytes: queuedChars * 2 }).message
      const reason = `${tooSlowMessage}: the page did not keep up, ${queuedChars} characters of frames unread`
      Queue.failCauseUnsafe(
        incoming,
        Cause.fail(new WebSocketClosed({ code: closeCodeOf(ClientTooSlow.apiError.code), reason }))
      )
    }

    // The constructor throws at once on a URL it cannot use: a failure, as in Node, not a defect.
    const ws = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const socket = new globalThis.WebSocket(toWebSocketUrl(request.url))
          socket.onopen = () => {
            open = true
            Deferred.doneUnsafe(opened, Exit.succeed(true))
          }
          socket.onmessage = (event) => {
            const text = String(event.data)
            if (queuedChars > 0 && queuedChars + text.length > maxQueuedChars) return tooSlow(socket)
            queuedChars += text.length
            Queue.offerUnsafe(incoming, text)
          }
          socket.onclose = (event) => {
            if (!open) return Deferred.doneUnsafe(opened, Exit.succeed(false))
            if (gaveUp) return
            if (event.code === 1000) Queue.endUnsafe(incoming)
            else
              Queue.failCauseUnsafe(
                incoming,
                Cause.fail(new WebSocketClosed({ code: event.code, reason: event.reason }))
              )
          }
          return socket
        },
        catch: (cause) => upgradeFailed("WebSocket connection failed", cause)
      }),
      (socket) => Effect.sync(() => socket.close(1000))
    )

    if (!(yield* Deferred.await(opened))) {
      if (request.plainGetActs === true) {
        return yield* upgradeFailed("the WebSocket upgrade failed (not asked again as a GET, which would act)")
      }
      // Asked again as a plain GET to read why, with the CSRF header: an endpoint that asks for it under the session
      // cookie would otherwise be refused for its absence (403) instead of for the real reason.
      const csrf = csrfTokenFromDocument()
      const response = yield* Effect.tryPromise({
        try: () =>
          fetch(request.url, {
            credentials: "include",
            ...(csrf === undefined ? {} : { headers: { [CsrfHeaderName]: csrf } })
          }),
        catch: (cause) => upgradeFailed("WebSocket failed", cause)
      })
      // A GET answered, so the upgrade was not refused for a reason the GET shows (a network or a proxy that
      // cannot carry WebSockets): the connection failed.
      if (response.status < 400) {
        yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
        return yield* upgradeFailed(`the WebSocket upgrade failed (a plain GET was answered ${response.status})`)
      }
      return yield* upgradeRefusal(HttpClientResponse.fromWeb(httpRequest, response), request.refused)
    }

    const send = (text: string) =>
      Effect.suspend(() =>
        ws.readyState === globalThis.WebSocket.OPEN
          ? Effect.sync(() => ws.send(text))
          : Effect.fail(new WebSocketClosed({ code: 1006, reason: "the WebSocket is not open" }))
      )
    const frames = Stream.fromQueue(incoming).pipe(
      Stream.tap((text) =>
        Effect.sync(() => {
          queuedChars -= text.length
        })
      )
    )
    return { frames, send }
  })
