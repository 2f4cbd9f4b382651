import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { type ErrorBody, type ErrorCode, httpStatusOf } from "@gatehouse-edge/core/domain"
import { TrackedWebSocket, webSocketOf } from "./websocket/TrackedWebSocket.js"

/** Where the HTTP server listens. */
export interface ListenOptions {
  readonly host: string
  readonly port: number
  /** How long in-flight requests get to finish on shutdown. */
  readonly gracefulShutdownMs?: number
}

const reasons: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large"
}

// What Node found wrong with a request it answers itself, as an error code and the message of the shared body.
const clientErrorOf = (error: NodeJS.ErrnoException): { readonly code: ErrorCode; readonly message: string } => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { code: "headers_too_large", message: "request headers are larger than the limit of 16 KiB" }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { code: "request_timeout", message: "the request did not arrive in time" }
    default:
      return { code: "invalid_argument", message: "malformed HTTP request" }
  }
}

// Node answers requests it cannot parse (headers over its 16 KiB limit, garbage) or that do not arrive in time
// before any handler runs, with a bare status line. Clients of this API expect the shared error body on every
// error, so write it here: only when no answer has started on the connection (an answer being sent is not cut
// into), else the connection is closed, as Node does.
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  const answering = (socket as { readonly _httpMessage?: { readonly headersSent?: boolean } })._httpMessage
  if (!socket.writable || error.code === "ECONNRESET" || answering?.headersSent === true) return socket.destroy()
  const { code, message } = clientErrorOf(error)
  const status = httpStatusOf(code)
  const body: ErrorBody = { error: { code, message } }
  const json = JSON.stringify(body)
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${json}`
  )
}

// A browser takes every body as the type it is sent with (a JSON error that echoes a request's text is never read
// as HTML or script). Set on Node's response before any handler runs (Node merges it into the handler's head):
// one header on every answer for a fraction of what one more header through the Effect response costs.
const noSniff = (_request: IncomingMessage, response: ServerResponse) =>
  response.setHeader("x-content-type-options", "nosniff")

// Node stops timing a request once its headers ask for an upgrade (its socket is then the upgrade handler's), and
// the server reads the body of such a request itself: one with `Upgrade: <anything>` that is answered as a plain
// request (`Upgrade: h2c`, or a POST that only claims to upgrade) would be held as long as its client trickles it.
// It gets the time every request gets (`requestTimeout`), unless it has become a WebSocket by then.
const boundUpgrade = (server: Server) => (_request: IncomingMessage, socket: Duplex) => {
  const limitMs = server.requestTimeout > 0 ? server.requestTimeout : 300_000
  const timer = setTimeout(() => {
    if (webSocketOf(socket) === undefined) socket.destroy()
  }, limitMs).unref()
  socket.once("close", () => clearTimeout(timer))
}

/**
 * A Node HTTP server that answers unparseable requests with the shared error body, tells browsers not to guess the
 * type of any answer (`x-content-type-options: nosniff`), and bounds requests that ask for an upgrade as it does
 * the others.
 */
export const createApiServer = (options: ServerOptions = {}): Server => {
  const server = createServer(options)
  server.on("request", noSniff)
  server.on("clientError", answerClientError)
  server.on("upgrade", boundUpgrade(server))
  return server
}

/** A Node HTTP server configured for the API: tracked WebSockets (see TrackedWebSocket), 1 MiB WebSocket messages. */
export const layerNodeHttpServer = (
  options: ListenOptions,
  limits: { readonly maxWebSocketMessageBytes?: number } = {}
) =>
  NodeHttpServer.layer(createApiServer, {
    host: options.host,
    port: options.port,
    gracefulShutdownTimeout: options.gracefulShutdownMs ?? 10_000,
    websocket: { WebSocket: TrackedWebSocket, maxPayload: limits.maxWebSocketMessageBytes ?? 1024 * 1024 }
  })
