import * as fs from "node:fs"
import * as http2 from "node:http2"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type * as grpc from "@grpc/grpc-js"
import { Context, Duration, Effect, Exit, Fiber, Layer, Option, Scope } from "effect"
import { closed, rawConnection } from "../../../test/support/RawConnection.js"
import { makeTestCa } from "../../../test/support/TestCa.js"
import { makeAuthServiceClient } from "../src/client.js"
import { GrpcServerAddress, type GrpcServerOptions } from "../src/index.js"
import { grpcServerLayer, keys } from "./support/GrpcHarness.js"
import { freezableLink, silentPeer } from "./support/UnresponsivePeers.js"

// Node ends an HTTP/2 session's connection gracefully and keeps it until the peer closes its side; grpc-js's stop
// waits for that, its forced stop too. A peer that froze or never spoke held a stopping server for good.

/** A running server whose scope the test closes itself (closed at the end of the test if it has not). */
const startServer = (options: Partial<GrpcServerOptions>) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const context = yield* Layer.buildWithScope(grpcServerLayer(options), scope)
    return { scope, address: Context.get(context, GrpcServerAddress) }
  })

/** Stops the server: how long that took, or none if it has not ended by the deadline. */
const stopWithin = (scope: Scope.Closeable, deadline: Duration.Input) =>
  Effect.gen(function* () {
    // Detached: a stop that hangs (what is tested) must fail the test, not hold it.
    const stopping = yield* Effect.forkDetach(Effect.timed(Scope.close(scope, Exit.void)))
    const stopped = yield* Fiber.join(stopping).pipe(Effect.timeoutOption(deadline))
    return Option.map(stopped, ([took]) => Duration.toMillis(took))
  })

/** A raw HTTP/2 unary call whose request message is held back: a call in flight, for as long as the test likes. */
const heldCall = (session: http2.ClientHttp2Session, method: string) =>
  Effect.gen(function* () {
    const stream = session.request(
      {
        ":method": "POST",
        ":path": `/gatehouse.v1.AuthService/${method}`,
        "content-type": "application/grpc",
        te: "trailers",
        authorization: `Bearer ${keys.valid.key}`
      },
      { endStream: false }
    )
    stream.on("error", () => {})
    const ended = new Promise<string>((resolve) => {
      const received: Array<Buffer> = []
      stream.on("data", (chunk: Buffer) => received.push(chunk))
      stream.on("trailers", (trailers) =>
        resolve(`${trailers["grpc-status"]} after ${Buffer.concat(received).length} bytes`)
      )
      stream.on("close", () => resolve(`closed without a status (${stream.rstCode})`))
    })
    // Frames are handled in order: the ping's answer says the server has the call.
    yield* Effect.callback<void>((resume) => {
      session.ping(() => resume(Effect.void))
    })
    return {
      /** Sends the (empty) request message: the call can be answered. */
      release: Effect.sync(() => stream.end(Buffer.alloc(5))),
      /** `<grpc-status> after <n> bytes` once the call ended, or how it ended without a status. */
      status: Effect.promise(() => ended)
    }
  })

const connect = (url: string, options: http2.SecureClientSessionOptions = {}) =>
  Effect.acquireRelease(
    Effect.callback<http2.ClientHttp2Session>((resume) => {
      const session = http2.connect(url, options)
      session.on("error", () => {})
      session.once("remoteSettings", () => resume(Effect.succeed(session)))
    }),
    (session) => Effect.sync(() => session.destroy())
  )

describe("a stopping gRPC server", () => {
  it.live("is not held by peers that stopped answering with nothing in flight: it ends well within its grace", () =>
    Effect.gen(function* () {
      const { scope, address } = yield* startServer({ shutdownGraceMs: 60_000 })
      // A grpc-js client that made a call and holds a watch (which the stop ends), then froze.
      const link = yield* freezableLink(address.port)
      const client = makeAuthServiceClient({
        address: `127.0.0.1:${link.port}`,
        apiKey: keys.valid.key,
        insecure: true
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => client.close()))
      const authId = yield* Effect.callback<string>((resume) => {
        client.CreateAuthRequest(
          { kind: "AUTH_REQUEST_KIND_SSH_CHECK", sshCheck: { src: "127.0.0.1", dst: "db1", localUser: "root" } },
          (error, response) =>
            resume(error === null ? Effect.succeed(response!.authRequest!.authId) : Effect.die(error))
        )
      })
      yield* Effect.callback<void>((resume) => {
        const watch = client.WatchAuthRequest({ authId })
        watch.on("error", (_: grpc.ServiceError) => {})
        watch.once("data", () => resume(Effect.void))
      })
      yield* link.freeze
      // Connections that never spoke and are never closed, on the TCP port and on the unix socket.
      yield* silentPeer({ port: address.port })
      yield* silentPeer({ path: address.unixSocket! })

      const took = yield* stopWithin(scope, "5 seconds")
      assert.isTrue(Option.isSome(took), "the stop had not ended after 5 s (its grace is 60 s)")
    }).pipe(Effect.scoped)
  )

  it.live("still gives a call in flight its grace: it is answered, then the stop ends", () =>
    Effect.gen(function* () {
      const { scope, address } = yield* startServer({ shutdownGraceMs: 60_000 })
      const session = yield* connect(`http://127.0.0.1:${address.port}`)
      const call = yield* heldCall(session, "ListUsers")
      // (Or the connection closed, which fails the test below.)
      const goaway = new Promise<void>((resolve) => {
        session.once("goaway", () => resolve())
        session.once("close", () => resolve())
      })
      const stopping = yield* Effect.forkChild(stopWithin(scope, "5 seconds"))
      // The server said it is stopping; the call it had started is still answered.
      yield* Effect.promise(() => goaway)
      yield* call.release
      assert.strictEqual(yield* call.status, "0 after 5 bytes")
      assert.isTrue(Option.isSome(yield* Fiber.join(stopping)), "the stop had not ended 5 s after the call")
    }).pipe(Effect.scoped)
  )

  describe("over TLS", () => {
    const tlsOptions = Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-grpc-stop-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    ).pipe(
      Effect.map((dir) => {
        const ca = makeTestCa(dir)
        return { ca: fs.readFileSync(ca.ca), tls: { cert: ca.serverCert, key: ca.serverKey } }
      })
    )

    it.live("waits out the grace for a frozen peer's call in flight, and no longer: the connection is cut", () =>
      Effect.gen(function* () {
        const { ca, tls } = yield* tlsOptions
        const graceMs = 3_000
        const { scope, address } = yield* startServer({ tls, shutdownGraceMs: graceMs })
        const link = yield* freezableLink(address.port)
        const session = yield* connect(`https://127.0.0.1:${link.port}`, { ca })
        yield* heldCall(session, "ListUsers")
        yield* link.freeze

        const took = yield* stopWithin(scope, Duration.millis(graceMs + 5_000))
        assert.isTrue(Option.isSome(took), "the stop had not ended 5 s after its grace")
        assert.isAtLeast(Option.getOrThrow(took), graceMs, "the call in flight was cut before the grace")
      }).pipe(Effect.scoped)
    )

    it.live("leaves no connection open that never finished its TLS handshake", () =>
      Effect.gen(function* () {
        const { tls } = yield* tlsOptions
        const { scope, address } = yield* startServer({ tls, shutdownGraceMs: 60_000 })
        const unfinished = yield* rawConnection(address.port, "")
        assert.isTrue(Option.isSome(yield* stopWithin(scope, "5 seconds")))
        yield* closed(unfinished).pipe(Effect.timeout("2 seconds"))
      }).pipe(Effect.scoped)
    )
  })
})
