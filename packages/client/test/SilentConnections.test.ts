import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/client"
import { Deferred, Effect, Fiber, Queue, Stream } from "effect"
import { v7 } from "uuid"
import { WebSocket } from "ws"
import { makeStreams } from "../src/GatehouseStreams.js"
import { openWebSocket } from "../src/WebSocketConnection.js"
import { nextConnection, startFakeServer } from "./support/FakeServer.js"

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

// A page for the test's scope: a `document`, and a `WebSocket` with the browser's interface (`ws` has it), which
// cannot be paused.
const asPage = Effect.gen(function* () {
  const globals = globalThis as { document?: unknown; WebSocket?: unknown }
  const saved = { document: globals.document, WebSocket: globals.WebSocket }
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      globals.document = saved.document
      globals.WebSocket = saved.WebSocket
    })
  )
  globals.document = {}
  globals.WebSocket = WebSocket
})

/** A valid event frame of about `size` characters (the route it names is that long). */
const eventFrame = (size: number) =>
  JSON.stringify({
    id: v7(),
    timestamp: "2026-01-01T00:00:00.000Z",
    level: "info",
    category: "config",
    action: "reload",
    data: { source: "routes", added: ["x".repeat(size)], removed: [], changed: [] }
  })

describe("a page that stops reading", () => {
  it.live("fails its stream with 1008 past the unread limit and closes the socket, instead of filling the tab", () =>
    Effect.gen(function* () {
      yield* asPage
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

  it.live(
    "with reconnect, an events watch picks up after the last event delivered, as from a server's too-slow close",
    () =>
      Effect.gen(function* () {
        yield* asPage
        const server = yield* startFakeServer()
        const streams = makeStreams({
          baseUrl: server.origin,
          newestEventId: Effect.succeed(undefined),
          maxQueuedChars: 100_000
        })
        const stalled = yield* Deferred.make<void>()
        const delivered = yield* Queue.unbounded<Event>()
        const fiber = yield* streams.watchEvents({}, { reconnect: { initialDelay: "10 millis" } }).pipe(
          Stream.tap(() => Deferred.await(stalled)),
          Stream.runForEach((event) => Queue.offer(delivered, event)),
          Effect.forkChild
        )
        const first = yield* Queue.take(server.connections)
        const sent = Array.from({ length: 20 }, () => eventFrame(10_000))
        for (const frame of sent) first.ws.send(frame)
        assert.include((yield* Deferred.await(first.closed)).reason, "too slowly")
        yield* Deferred.succeed(stalled, undefined)

        const second = yield* nextConnection(server, fiber)
        const before = yield* Queue.takeAll(delivered)
        assert.isBelow(before.length, sent.length, "frames past the limit were dropped")
        assert.deepStrictEqual(
          before.map((e) => e.id),
          sent.slice(0, before.length).map((frame) => JSON.parse(frame).id)
        )
        const since = new URL(second.url, server.origin).searchParams.get("since")
        assert.strictEqual(since, before.at(-1)!.id)
        const next = eventFrame(10)
        second.ws.send(next)
        assert.strictEqual((yield* Queue.take(delivered)).id, JSON.parse(next).id)
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.scoped)
  )
})
