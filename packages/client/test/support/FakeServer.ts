import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Cause, Deferred, Effect, Exit, Fiber, Queue, type Scope } from "effect"
import { type WebSocket, WebSocketServer } from "ws"

/** A refusal of an upgrade: the HTTP response the fake server sends instead of 101. */
export interface Refusal {
  readonly status: number
  readonly body: string
  readonly contentType?: string
}

/** One accepted WebSocket, seen from the server side. */
export interface FakeConnection {
  readonly ws: WebSocket
  /** Path and query of the upgrade request. */
  readonly url: string
  readonly headers: http.IncomingHttpHeaders
  /** Text frames the client sent, in order. */
  readonly received: Array<string>
  /** Completes with the close code and reason the server saw. */
  readonly closed: Deferred.Deferred<{ readonly code: number; readonly reason: string }>
}

/** A WebSocket server speaking only the transport, for what the real server cannot be made to do on demand. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** Accepted connections, in order. */
  readonly connections: Queue.Dequeue<FakeConnection>
  /** `METHOD /path?query` of each plain request (not an upgrade), in order. */
  readonly plainRequests: ReadonlyArray<string>
}

/**
 * Starts a loopback HTTP server that upgrades every request to a WebSocket, unless `refuse` returns a response
 * for it, and answers plain requests with `answer` (404 without). Scoped: every connection is terminated and the
 * server closed at the end.
 */
export const startFakeServer = (
  options: {
    readonly refuse?: (request: http.IncomingMessage) => Refusal | undefined
    readonly answer?: (request: http.IncomingMessage) => Refusal
  } = {}
): Effect.Effect<FakeServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const connections = yield* Queue.unbounded<FakeConnection>()
    const plainRequests: Array<string> = []
    const wss = new WebSocketServer({ noServer: true })
    const server = http.createServer((req, res) => {
      plainRequests.push(`${req.method} ${req.url}`)
      const answer = options.answer?.(req)
      if (answer === undefined) return res.writeHead(404).end()
      res.writeHead(answer.status, { "content-type": answer.contentType ?? "application/json" }).end(answer.body)
    })
    server.on("upgrade", (request, socket, head) => {
      const refusal = options.refuse?.(request)
      if (refusal !== undefined) {
        const body = Buffer.from(refusal.body)
        socket.end(
          `HTTP/1.1 ${refusal.status} Refused\r\ncontent-type: ${refusal.contentType ?? "application/json"}\r\n` +
            `content-length: ${body.length}\r\nconnection: close\r\n\r\n${refusal.body}`
        )
        return
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        const closed = Deferred.makeUnsafe<{ readonly code: number; readonly reason: string }>()
        const received: Array<string> = []
        ws.on("message", (data) => received.push(String(data)))
        ws.on("close", (code, reason) => Deferred.doneUnsafe(closed, Exit.succeed({ code, reason: String(reason) })))
        Queue.offerUnsafe(connections, { ws, url: request.url ?? "", headers: request.headers, received, closed })
      })
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const ws of wss.clients) ws.terminate()
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { origin: `http://127.0.0.1:${port}`, connections, plainRequests }
  })

/**
 * The next connection `server` accepts from the stream run by `fiber`: a test failure, at once, when that stream ends
 * first (failed or ended instead of connecting again).
 */
export const nextConnection = (
  server: FakeServer,
  fiber: Fiber.Fiber<unknown, unknown>
): Effect.Effect<FakeConnection> =>
  Effect.raceFirst(
    Queue.take(server.connections),
    Effect.flatMap(Fiber.await(fiber), (exit) =>
      Effect.die(
        new Error(`the stream ended instead of connecting: ${Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""}`)
      )
    )
  )
