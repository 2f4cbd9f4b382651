import type { AddressInfo } from "node:net"
import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { WebSocket, WebSocketServer } from "ws"
import { createApiServer } from "../src/NodeServer.js"
import { TrackedWebSocket } from "../src/websocket/TrackedWebSocket.js"

// A request that does not arrive in time is answered 408 with the shared body. Node stops timing a request once it
// asks for an upgrade; the API server times it as any other (`requestTimeout`), unless it has become a WebSocket.

/** Opens a connection and sends `text` (a request whose body never comes to its end). */
const connect = (port: number, text: string) =>
  Effect.acquireRelease(
    Effect.callback<net.Socket>((resume) => {
      const socket = net.connect(port, "127.0.0.1", () => resume(Effect.succeed(socket)))
      socket.on("error", () => {})
      socket.write(text)
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )

/** What the server wrote on the connection until it closed it. */
const answerOf = (socket: net.Socket) =>
  Effect.callback<string>((resume) => {
    let received = ""
    socket.on("data", (chunk) => (received += chunk))
    if (socket.destroyed) return resume(Effect.succeed(received))
    socket.once("close", () => resume(Effect.succeed(received)))
  })

/** The API server with a short request timeout (checked every 50 ms), listening on loopback for the scope. */
const apiServer = Effect.acquireRelease(
  Effect.callback<ReturnType<typeof createApiServer>>((resume) => {
    const server = createApiServer({ requestTimeout: 300, connectionsCheckingInterval: 50 })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

describe("requests that do not arrive in time", () => {
  it.live("are answered 408 with the shared error body", () =>
    Effect.gen(function* () {
      const server = yield* apiServer
      server.on("request", () => {})
      const port = (server.address() as AddressInfo).port
      const trickled = yield* connect(
        port,
        "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"
      )
      const answer = yield* answerOf(trickled).pipe(Effect.timeout("5 seconds"))
      assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/)
      assert.deepStrictEqual(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), {
        error: { code: "request_timeout", message: "the request did not arrive in time" }
      })
    }).pipe(Effect.scoped)
  )
})

describe("requests that ask for an upgrade", () => {
  it.live("are cut at requestTimeout unless they became a WebSocket", () =>
    Effect.gen(function* () {
      const server = yield* apiServer
      const sockets = new WebSocketServer({ noServer: true, WebSocket: TrackedWebSocket })
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          for (const client of sockets.clients) client.terminate()
        })
      )
      // Stands for the server's own upgrade handler: a WebSocket is upgraded, anything else is read as a plain
      // request whose body, here, never ends.
      server.on("upgrade", (request, socket, head) => {
        if (request.headers.upgrade !== "websocket") return
        sockets.handleUpgrade(request, socket, head, (ws) => ws.on("message", (data) => ws.send(String(data))))
      })
      const port = (server.address() as AddressInfo).port
      const websocket = new WebSocket(`ws://127.0.0.1:${port}/x`)
      yield* Effect.callback<void>((resume) => void websocket.once("open", () => resume(Effect.void)))
      const trickled = yield* connect(
        port,
        "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n" +
          "Content-Length: 100\r\n\r\n{"
      )
      yield* answerOf(trickled).pipe(Effect.timeout("5 seconds"))
      // Opened before it, the WebSocket is past the same time, and still answers.
      const echoed = yield* Effect.callback<string>((resume) => {
        websocket.once("message", (data) => resume(Effect.succeed(String(data))))
        websocket.once("close", (code) => resume(Effect.succeed(`closed ${code}`)))
        websocket.send("still there")
      })
      assert.strictEqual(echoed, "still there")
      websocket.close()
    }).pipe(Effect.scoped)
  )
})
