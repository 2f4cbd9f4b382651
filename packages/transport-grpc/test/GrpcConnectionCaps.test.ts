import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { closedUnanswered, type RawConnection, rawConnection } from "../../../test/support/RawConnection.js"
import { GrpcServerAddress } from "../src/index.js"
import { call, clientOf, grpcServerLayer, keys, ok } from "./support/GrpcHarness.js"

// grpc-js has no hook between accept and its HTTP/2 session: the server accepts TCP connections itself, counts
// them, and hands the admitted ones to grpc-js. One past a cap is closed before anything of it is read (no HTTP/2
// SETTINGS from the server), while the connections already held are served.

/** A raw TCP connection to the gRPC port that sent the HTTP/2 preface. */
const rawGrpcConnection = Effect.flatMap(GrpcServerAddress, (address) =>
  rawConnection(address.port, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
)

/** Resolves once the server has sent something on the connection (its SETTINGS): it was admitted. */
const answered = (connection: RawConnection) =>
  Effect.callback<void>((resume) => {
    if (connection.received() > 0) return resume(Effect.void)
    connection.socket.once("data", () => resume(Effect.void))
  }).pipe(Effect.timeout("5 seconds"))

const listCall = Effect.gen(function* () {
  const client = yield* clientOf({ apiKey: keys.valid.key })
  return () => call<{ authRequests: ReadonlyArray<unknown> }>(client, "ListAuthRequests", {})
})

describe("gRPC connection caps", () => {
  it.live("a client's connection past its cap is closed at once, unread; its held connections are served", () =>
    Effect.gen(function* () {
      const list = yield* listCall
      assert.isArray(ok(yield* list()).authRequests)
      yield* answered(yield* rawGrpcConnection)
      yield* closedUnanswered(yield* rawGrpcConnection)
      assert.isArray(ok(yield* list()).authRequests)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ connections: { perClient: 2, total: 100 } })))
  )

  it.live("a connection past the server's cap is closed at once, unread", () =>
    Effect.gen(function* () {
      const list = yield* listCall
      assert.isArray(ok(yield* list()).authRequests)
      yield* answered(yield* rawGrpcConnection)
      yield* answered(yield* rawGrpcConnection)
      yield* closedUnanswered(yield* rawGrpcConnection)
      assert.isArray(ok(yield* list()).authRequests)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer({ connections: { perClient: 100, total: 3 } })))
  )

  it.live("a closed connection gives its place back", () =>
    Effect.gen(function* () {
      const first = yield* rawGrpcConnection
      yield* answered(first)
      first.socket.destroy()
      // The server sees the close a moment later: connect until one is admitted.
      let admitted = false
      for (let i = 0; i < 200 && !admitted; i++) {
        const next = yield* rawGrpcConnection
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
