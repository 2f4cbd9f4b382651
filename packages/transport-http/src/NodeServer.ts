import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { requestArrivalTimeoutMs } from "@gatehouse-edge/contract/domain"
import {
  type ConnectionCaps,
  type ErrorBody,
  type ErrorCode,
  httpStatusOf,
  makeConnectionCaps
} from "@gatehouse-edge/core/domain"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TrackedWebSocket, webSocketOf } from "./websocket/TrackedWebSocket.js"
import { stampUpgradeRequestId } from "./websocket/UpgradeRequestId.js"

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

// Node's defaults let a connection that trickles its headers live 60 s (checked every 30 s, so up to 90 s) and a
// request 300 s: each such connection holds a file descriptor that long. Headers get 15 s. A request gets 90 s to
// arrive whole: more than the 60 s a file write's body has once it is queued (FilesLive's receiveTimeout), which
// must answer 504 itself rather than be cut by Node first. Expiry is checked every 5 s.
const timeoutsOf = (options: ServerOptions): ServerOptions => {
  const requestTimeout = options.requestTimeout ?? requestArrivalTimeoutMs
  return {
    requestTimeout,
    // Node refuses a headers timeout longer than the request timeout.
    headersTimeout: options.headersTimeout ?? (requestTimeout > 0 ? Math.min(15_000, requestTimeout) : 15_000),
    connectionsCheckingInterval: options.connectionsCheckingInterval ?? 5_000
  }
}

/**
 * A Node HTTP server that answers unparseable requests with the shared error body, tells browsers not to guess the
 * type of any answer (`x-content-type-options: nosniff`), bounds requests that ask for an upgrade as it does
 * the others, gives an upgrade's 101 the request id, and with `connections` refuses connections past their caps
 * before reading any of them.
 */
export const createApiServer = (options: ServerOptions = {}, connections?: ConnectionCaps): Server => {
  const server = createServer({ ...options, ...timeoutsOf(options) })
  if (connections !== undefined) {
    server.on("connection", (socket: Socket) => {
      connections.admit(socket)
    })
  }
  server.on("request", noSniff)
  server.on("clientError", answerClientError)
  server.on("upgrade", boundUpgrade(server))
  // Before Effect's upgrade listener (added when the app is served), which runs the handler that writes the 101.
  server.on("upgrade", stampUpgradeRequestId)
  return server
}

/** How many TCP connections the HTTP listener holds at once (`http.limits.connections_per_client`, `.connections`). */
export interface HttpConnectionLimits {
  /** Per client (an IPv4 address, an IPv6 /64 of the socket's peer). */
  readonly perClient: number
  readonly total: number
  /** Peers that count only towards `total`: trusted reverse proxies, which carry every client's connections. */
  readonly exempt?: ((address: string) => boolean) | undefined
}

/**
 * Without configured limits: a client's streams and requests at once (1,000 + 256, each WebSocket is a
 * connection), and a total a default open-file limit leaves room for.
 */
export const defaultHttpConnectionLimits: HttpConnectionLimits = { perClient: 1256, total: 8192 }

/**
 * A Node HTTP server configured for the API: tracked WebSockets (see TrackedWebSocket), 1 MiB WebSocket messages,
 * connections capped per client and in total (refusals logged as a warning, at most one a minute).
 */
export const layerNodeHttpServer = (
  options: ListenOptions,
  limits: {
    readonly maxWebSocketMessageBytes?: number
    readonly connections?: HttpConnectionLimits | undefined
    /** Node's server options (timeouts) over the API's defaults; for tests. */
    readonly server?: ServerOptions | undefined
  } = {}
) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const context = yield* Effect.context<never>()
      const warn = (notice: string) => Effect.runForkWith(context)(Effect.logWarning(`HTTP: ${notice}`))
      const caps = makeConnectionCaps({
        ...(limits.connections ?? defaultHttpConnectionLimits),
        configKey: "http.limits",
        onRefused: warn
      })
      return NodeHttpServer.layer(() => createApiServer(limits.server, caps), {
        host: options.host,
        port: options.port,
        gracefulShutdownTimeout: options.gracefulShutdownMs ?? 10_000,
        websocket: { WebSocket: TrackedWebSocket, maxPayload: limits.maxWebSocketMessageBytes ?? 1024 * 1024 }
      })
    })
  )
