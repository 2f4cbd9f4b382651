import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue, Stream } from "effect"
import { WebSocket } from "ws"
import { openWebSocket } from "../src/WebSocketConnection.js"
import { startFakeServer } from "./support/FakeServer.js"

// A connection whose peer vanished, and a page that stops reading: against a plain `ws` server on loopback.

const open = (origin: string, options: { silenceTimeoutMs?: number; maxQueuedChars?: number } = {}) =>
  openWebSocket({ url: `${origin}/x`, headers: {}, refused: () => Effect.void, ...options })

describe("a silent server", () => {
  it.live("fails the stream with 1006 once nothing, not even a ping, came for the silence timeout", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const connection = yield* open(server.origin, { silenceTimeoutMs: 300 })
      const error = yield* Effect.flip(Stream.runDrain(connection.frames))
      assert.strictEqual(error.code, 1006)
      assert.include(error.reason, "sent nothing, not even a ping, for 300 ms")
    }).pipe(Effect.scoped)
  )

  it.live("a server that only pings keeps the stream open", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const connection = yield* open(server.origin, { silenceTimeoutMs: 300 })
      const peer = yield* Queue.take(server.connections)
      const pinging = setInterval(() => peer.ws.ping(), 100)
      const fiber = yield* Stream.runCollect(connection.frames).pipe(Effect.forkChild)
      // Four silence timeouts of pings only, then a frame and a normal close.
      yield* Effect.sleep("1200 millis")
      clearInterval(pinging)
      peer.ws.send("last")
      peer.ws.close(1000)
      assert.deepStrictEqual(yield* Fiber.join(fiber), ["last"])
    }).pipe(Effect.scoped)
  )
})

describe("a page that stops reading", () => {
  it.live("fails its stream with 1008 past the unread limit and closes the socket, instead of filling the tab", () =>
    Effect.gen(function* () {
      const globals = globalThis as { document?: unknown; WebSocket?: unknown }
      const saved = { document: globals.document, WebSocket: globals.WebSocket }
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          globals.document = saved.document
          globals.WebSocket = saved.WebSocket
        })
      )
      // A page: a `document`, and a `WebSocket` with the browser's interface (`ws` has it), which cannot be paused.
      globals.document = {}
      globals.WebSocket = WebSocket
      const server = yield* startFakeServer()
      const connection = yield* open(server.origin, { maxQueuedChars: 100_000 })
      const peer = yield* Queue.take(server.connections)
      const stalled = yield* Deferred.make<void>()
      const fiber = yield* connection.frames.pipe(
        Stream.tap(() => Deferred.await(stalled)),
        Stream.runDrain,
        Effect.forkChild
      )
      const frame = "x".repeat(10_000)
      for (let i = 0; i < 200; i++) peer.ws.send(frame)
      // The page closed the socket while its consumer was stuck: nothing more piles up.
      const closed = yield* Deferred.await(peer.closed)
      assert.strictEqual(closed.code, 1000)
      assert.include(closed.reason, "too slowly")
      // Once the consumer goes on, it gets what was held, then the failure.
      yield* Deferred.succeed(stalled, undefined)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "WebSocketClosed")
      if (error._tag === "WebSocketClosed") {
        assert.strictEqual(error.code, 1008)
        assert.include(error.reason, "did not keep up")
      }
    }).pipe(Effect.scoped)
  )
})
