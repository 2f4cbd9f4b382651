import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { type ErrorBody, type ErrorCode, httpStatusOf } from "@gatehouse-edge/core/domain"
import { TrackedWebSocket } from "./websocket/TrackedWebSocket.js"

/** Where the HTTP server listens. */
export interface ListenOptions {
  readonly host: string
  readonly port: number
  /** How long in-flight requests get to finish on shutdown. */
  readonly gracefulShutdownMs?: number
}

const reasons: Record<number, string> = { 400: "Bad Request", 431: "Request Header Fields Too Large" }

// Node answers requests it cannot parse (headers over its 16 KiB limit, garbage) before any handler runs, with a
// bare status line. Clients of this API expect the shared error body on every error, so write it here.
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (!socket.writable || error.code === "ECONNRESET") return socket.destroy()
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW"
  const code: ErrorCode = tooLarge ? "headers_too_large" : "invalid_argument"
  const status = httpStatusOf(code)
  const body: ErrorBody = {
    error: {
      code,
      message: tooLarge ? "request headers are larger than the limit of 16 KiB" : "malformed HTTP request"
    }
  }
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

/**
 * A Node HTTP server that answers unparseable requests with the shared error body, and tells browsers not to
 * guess the type of any answer (`x-content-type-options: nosniff`).
 */
export const createApiServer = (): Server => {
  const server = createServer()
  server.on("request", noSniff)
  server.on("clientError", answerClientError)
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
