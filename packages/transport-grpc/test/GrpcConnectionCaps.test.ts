import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GrpcServerAddress } from "../src/index.js"
import { call, clientOf, grpcServerLayer, keys, ok } from "./support/GrpcHarness.js"

// grpc-js has no hook between accept and its HTTP/2 session: the server accepts TCP connections itself, counts
// them, and hands the admitted ones to grpc-js. One past a cap is closed before anything of it is read (no HTTP/2
// SETTINGS from the server), while the connections already held are served.

/** A raw TCP connection to the gRPC port; `received` is what the server sent on it. */
const rawConnection = Effect.gen(function* () {
  const address = yield* GrpcServerAddress
  return yield* Effect.acquireRelease(
    Effect.callback<{ readonly socket: net.Socket; readonly received: () => number }>((resume) => {
      let received = 0
      const socket = net.connect(address.port, "127.0.0.1", () =>
        resume(Effect.succeed({ socket, received: () => received }))
      )
      socket.on("data", (chunk: Buffer) => (received += chunk.length))
      socket.on("error", () => {})
      socket.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )
})

/** Resolves once the server has sent something on the connection (its SETTINGS): it was admitted. */
const answered = (connection: { readonly socket: net.Socket; readonly received: () => number }) =>
  Effect.callback<void>((resume) => {
    if (connection.received() > 0) return resume(Effect.void)
    connection.socket.once("data", () => resume(Effect.void))
  }).pipe(Effect.timeout("5 seconds"))

const closedUnanswered = (connection: { readonly socket: net.Socket; readonly received: () => number }) =>
  Effect.gen(function* () {
    yield* Effect.callback<void>((resume) => {
      if (connection.socket.destroyed) return resume(Effect.void)
      connection.socket.once("close", () => resume(Effect.void))
    }).pipe(Effect.timeout("2 seconds"))
    assert.strictEqual(connection.received(), 0)
  })

const listCall = Effect.gen(function* () {
  const client = yield* clientOf({ apiKey: keys.valid.key })
  return () => call<{ authRequests: ReadonlyArray<unknown> }>(client, "ListAuthRequests", {})
})

describe("gRPC connection caps", () => {
  it.live("a client's connection past its cap is closed at once, unread; its held connections are served", () =>
    Effect.gen(function* () {
      const list = yield* listCall
      assert.isArray(ok(yield* list()).authRequests)
      yield* answered(yield* rawConnection)
      yield* closedUnanswered(yield* rawConnection)
      assert.isArray(ok(yield* list()).authRequests)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ connections: { perClient: 2, total: 100 } })))
  )

  it.live("a connection past the server's cap is closed at once, unread", () =>
    Effect.gen(function* () {
      const list = yield* listCall
      assert.isArray(ok(yield* list()).authRequests)
      yield* answered(yield* rawConnection)
      yield* answered(yield* rawConnection)
      yield* closedUnanswered(yield* rawConnection)
      assert.isArray(ok(yield* list()).authRequests)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ connections: { perClient: 100, total: 3 } })))
  )

  it.live("a closed connection gives its place back", () =>
    Effect.gen(function* () {
      const first = yield* rawConnection
      yield* answered(first)
      first.socket.destroy()
      // The server sees the close a moment later: connect until one is admitted.
      let admitted = false
      for (let i = 0; i < 200 && !admitted; i++) {
        const next = yield* rawConnection
        admitted = yield* answered(next).pipe(
          Effect.timeout("100 millis"),
          Effect.as(true),
          Effect.catch(() => Effect.succeed(false))
        )
        if (!admitted) next.socket.destroy()
      }
      assert.isTrue(admitted)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ connections: { perClient: 1, total: 100 } })))
  )
})
