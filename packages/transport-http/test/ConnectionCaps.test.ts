import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { makeConnectionCaps } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import { closed, closedUnanswered, rawConnection } from "../../../test/support/RawConnection.js"
import { createApiServer } from "../src/NodeServer.js"

// Every connection holds a file descriptor whatever it sends: past a client's cap, or the server's, a new one is
// closed before anything of it is read, while the connections already held are served. Headers that trickle are
// cut after `headersTimeout` (15 s by default, not Node's 60 s checked every 30 s).

/** The API server answering every request 200 `ok`, with the caps given, on loopback for the scope. */
const apiServer = (caps: { readonly perClient: number; readonly total: number }, options: http.ServerOptions = {}) =>
  Effect.gen(function* () {
    const notices: Array<string> = []
    const connections = makeConnectionCaps({ ...caps, configKey: "http.limits", onRefused: (n) => notices.push(n) })
    const server = yield* Effect.acquireRelease(
      Effect.callback<http.Server>((resume) => {
        const server = createApiServer(options, connections)
        server.on("request", (_request, response: http.ServerResponse) => response.end("ok"))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { port: (server.address() as AddressInfo).port, notices, connections }
  })

/** A connection that sent the start of a request and nothing more. */
const partialRequest = (port: number) => rawConnection(port, "GET /health HTTP/1.1\r\nHost: x\r\n")

/** `GET /health` on the keep-alive agent's connection: the status and body. */
const health = (port: number, agent: http.Agent) =>
  Effect.callback<string>((resume) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/health", agent }, (response) => {
      let body = ""
      response.on("data", (chunk) => (body += chunk))
      response.on("end", () => resume(Effect.succeed(`${response.statusCode} ${body}`)))
    })
    request.on("error", (error) => resume(Effect.succeed(`failed: ${error.message}`)))
  })

const keepAliveAgent = Effect.acquireRelease(
  Effect.sync(() => new http.Agent({ keepAlive: true, maxSockets: 1 })),
  (agent) => Effect.sync(() => agent.destroy())
)

/** Waits until the server counts `n` connections (accepts are asynchronous to the client's connect). */
const heldCount = (connections: { readonly open: () => number }, n: number) =>
  Effect.gen(function* () {
    while (connections.open() < n) yield* Effect.sleep("5 millis")
  }).pipe(Effect.timeout("5 seconds"))

describe("the HTTP server's connection caps", () => {
  it.live("close a client's connection past its cap at once, unread; held ones are still served", () =>
    Effect.gen(function* () {
      const { port, notices, connections } = yield* apiServer({ perClient: 4, total: 100 })
      const agent = yield* keepAliveAgent
      assert.strictEqual(yield* health(port, agent), "200 ok")
      for (let i = 0; i < 3; i++) yield* partialRequest(port)
      yield* heldCount(connections, 4)
      const over = yield* partialRequest(port)
      // Well within the headers timeout (15 s): it was closed because of the cap, with no answer.
      yield* closedUnanswered(over)
      assert.strictEqual(yield* health(port, agent), "200 ok")
      assert.strictEqual(connections.open(), 4)
      assert.deepStrictEqual(notices, [
        "refusing a connection from 127.0.0.1: it holds 4 connections (http.limits.connections_per_client 4)"
      ])
      // Refusals that follow are counted into the next notice, not logged one by one.
      yield* closedUnanswered(yield* partialRequest(port))
      assert.strictEqual(notices.length, 1)
    }).pipe(Effect.scoped)
  )

  it.live("close a connection past the server's cap at once, whoever opens it", () =>
    Effect.gen(function* () {
      const { port, notices, connections } = yield* apiServer({ perClient: 100, total: 3 })
      const agent = yield* keepAliveAgent
      assert.strictEqual(yield* health(port, agent), "200 ok")
      for (let i = 0; i < 2; i++) yield* partialRequest(port)
      yield* heldCount(connections, 3)
      const over = yield* partialRequest(port)
      yield* closedUnanswered(over)
      assert.strictEqual(yield* health(port, agent), "200 ok")
      assert.deepStrictEqual(notices, [
        "refusing a connection from 127.0.0.1: the server holds 3 connections (http.limits.connections 3)"
      ])
    }).pipe(Effect.scoped)
  )

  it.live("give a closed connection's place back", () =>
    Effect.gen(function* () {
      const { port, connections } = yield* apiServer({ perClient: 1, total: 10 })
      const first = yield* partialRequest(port)
      yield* heldCount(connections, 1)
      first.socket.destroy()
      while (connections.open() > 0) yield* Effect.sleep("5 millis")
      const agent = yield* keepAliveAgent
      assert.strictEqual(yield* health(port, agent), "200 ok")
    }).pipe(Effect.scoped)
  )
})

describe("the HTTP server's timeouts", () => {
  it("default to 15 s for headers and 90 s for a whole request (above a file body's 60 s), checked every 5 s", () => {
    const server = createApiServer()
    assert.strictEqual(server.headersTimeout, 15_000)
    assert.strictEqual(server.requestTimeout, 90_000)
    // Not in Node's typings, but kept on the server as the option it was given.
    assert.strictEqual(
      (server as unknown as { readonly connectionsCheckingInterval: number }).connectionsCheckingInterval,
      5_000
    )
  })

  it.live("cut a client that trickles its headers after headersTimeout, though it keeps sending", () =>
    Effect.gen(function* () {
      const { port } = yield* apiServer(
        { perClient: 10, total: 10 },
        { headersTimeout: 300, requestTimeout: 10_000, connectionsCheckingInterval: 50 }
      )
      const trickling = yield* partialRequest(port)
      // A header line every 50 ms: never idle, never complete.
      const feeder = setInterval(() => trickling.socket.write("X-Slow: 1\r\n"), 50)
      yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(feeder)))
      yield* closed(trickling).pipe(Effect.timeout("3 seconds"))
      assert.match(trickling.text(), /^HTTP\/1\.1 408 Request Timeout\r\n/)
    }).pipe(Effect.scoped)
  )
})
