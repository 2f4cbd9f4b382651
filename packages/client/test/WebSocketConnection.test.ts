import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Queue, Stream } from "effect"
import { silentServer } from "../../../test/support/SilentServer.js"
import { GatehouseClient } from "../src/GatehouseClient.js"
import { makeStreams } from "../src/GatehouseStreams.js"
import { openWebSocket } from "../src/WebSocketConnection.js"
import { type Refusal, startFakeServer } from "./support/FakeServer.js"

// Transport behaviour the real server cannot be made to show on demand (1008/1011 closes, broken frames, odd
// refusals), against a plain `ws` server on loopback.

// An empty history: an events watch with reconnect starts from no event (see `resumeBeforeAnyEvent`).
const streamsOf = (origin: string) =>
  makeStreams({ baseUrl: origin, authorization: "Bearer gh_test_key", newestEventId: Effect.succeed(undefined) })

const anEvent = {
  id: "01890a5d-ac96-774b-bcce-b302099a8057",
  timestamp: "2026-01-01T00:00:00.000Z",
  level: "info",
  category: "config",
  action: "reload",
  data: { source: "routes", added: ["app"], removed: [], changed: [] }
}

const unauthenticated: Refusal = {
  status: 401,
  body: JSON.stringify({ error: { code: "unauthenticated", message: "missing or invalid API key" } })
}

describe("close codes", () => {
  for (const [code, reason] of [
    [1008, "client too slow"],
    [1011, "upstream failed"],
    [1001, "server shutting down"]
  ] as const) {
    it.live(`${code} fails the stream with WebSocketClosed carrying code and reason`, () =>
      Effect.gen(function* () {
        const server = yield* startFakeServer()
        const fiber = yield* streamsOf(server.origin).watchHealth().pipe(Stream.runCollect, Effect.forkChild)
        const connection = yield* Queue.take(server.connections)
        connection.ws.send(JSON.stringify({}))
        connection.ws.close(code, reason)
        const error = yield* Effect.flip(Fiber.join(fiber))
        assert.strictEqual(error._tag, "WebSocketClosed")
        if (error._tag !== "WebSocketClosed") return
        assert.strictEqual(error.code, code)
        assert.strictEqual(error.reason, reason)
        assert.strictEqual(error.message, `WebSocket closed with ${code}: ${reason}`)
      }).pipe(Effect.scoped)
    )
  }

  it.live("1000 ends the stream after the frames sent before it", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const fiber = yield* streamsOf(server.origin).watchHealth().pipe(Stream.runCollect, Effect.forkChild)
      const connection = yield* Queue.take(server.connections)
      connection.ws.send(JSON.stringify({}))
      connection.ws.send(JSON.stringify({ app: { status: "healthy", latency_ms: 1, uptime_s: 2, last_check: null } }))
      connection.ws.close(1000)
      const maps = yield* Fiber.join(fiber)
      assert.deepStrictEqual(maps, [{}, { app: { status: "healthy", latency_ms: 1, uptime_s: 2, last_check: null } }])
    }).pipe(Effect.scoped)
  )

  it.live("a connection lost without a close frame fails with 1006", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const fiber = yield* streamsOf(server.origin).watchRoutes().pipe(Stream.runCollect, Effect.forkChild)
      const connection = yield* Queue.take(server.connections)
      connection.ws.terminate()
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "WebSocketClosed")
      if (error._tag === "WebSocketClosed") assert.strictEqual(error.code, 1006)
    }).pipe(Effect.scoped)
  )
})

describe("frames", () => {
  it.live("a frame that does not decode fails with a SchemaError, and the socket is closed", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const fiber = yield* streamsOf(server.origin).watchEvents().pipe(Stream.runCollect, Effect.forkChild)
      const connection = yield* Queue.take(server.connections)
      connection.ws.send(JSON.stringify({ id: "not-an-event" }))
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "SchemaError")
      const closed = yield* Deferred.await(connection.closed)
      assert.strictEqual(closed.code, 1000)
    }).pipe(Effect.scoped)
  )

  it.live("text that is not JSON fails with a SchemaError too", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const fiber = yield* streamsOf(server.origin).watchHealth().pipe(Stream.runCollect, Effect.forkChild)
      const connection = yield* Queue.take(server.connections)
      connection.ws.send("{not json")
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "SchemaError")
    }).pipe(Effect.scoped)
  )

  it.live("a slow consumer gets every frame in order (the socket pauses and resumes)", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const socket = yield* openWebSocket({
        url: `${server.origin}/stream`,
        headers: {},
        refused: () => Effect.void,
        highWaterMark: 4
      })
      const connection = yield* Queue.take(server.connections)
      const count = 2_000
      for (let i = 0; i < count; i++) connection.ws.send(String(i))
      connection.ws.close(1000)
      const frames = yield* socket.frames.pipe(
        Stream.tap(() => Effect.yieldNow),
        Stream.runCollect
      )
      assert.strictEqual(frames.length, count)
      assert.isTrue(frames.every((frame, i) => frame === String(i)))
    }).pipe(Effect.scoped)
  )
})

describe("the upgrade request", () => {
  it.live("carries the API key as a bearer token and the endpoint's path and query", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const received = yield* Deferred.make<void>()
      const fiber = yield* streamsOf(server.origin)
        .watchEvents({ category: "config", limit: 5 })
        .pipe(
          Stream.tap(() => Deferred.succeed(received, undefined)),
          Stream.runDrain,
          Effect.forkChild
        )
      const connection = yield* Queue.take(server.connections)
      connection.ws.send(JSON.stringify(anEvent))
      assert.strictEqual(connection.headers.authorization, "Bearer gh_test_key")
      assert.strictEqual(connection.headers.origin, undefined)
      const url = new URL(connection.url, server.origin)
      assert.strictEqual(url.pathname, "/api/v1/events")
      assert.strictEqual(url.searchParams.get("category"), "config")
      assert.strictEqual(url.searchParams.get("limit"), "5")
      // Interrupted once open (a consumer interrupted during the handshake just drops the connection).
      yield* Deferred.await(received)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual((yield* Deferred.await(connection.closed)).code, 1000)
    }).pipe(Effect.scoped)
  )

  it.live("validateStream sends each document as one text frame", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const fiber = yield* streamsOf(server.origin)
        .validateStream(Stream.make("a: {}", "b: {}"))
        .pipe(Stream.runCollect, Effect.forkChild)
      const connection = yield* Queue.take(server.connections)
      const done = JSON.stringify({ done: true, valid: 1, invalid: 0 })
      connection.ws.on("message", () => connection.ws.send(done))
      const frames = yield* Fiber.join(fiber)
      assert.deepStrictEqual(connection.received, ["a: {}", "b: {}"])
      assert.strictEqual(frames.length, 2)
      assert.strictEqual((yield* Deferred.await(connection.closed)).code, 1000)
    }).pipe(Effect.scoped)
  )
})

describe("refusals", () => {
  it.live("a JSON error body decodes into the endpoint's typed error", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer({ refuse: () => unauthenticated })
      const error = yield* Effect.flip(streamsOf(server.origin).watchHealth().pipe(Stream.runDrain))
      assert.strictEqual(error._tag, "Unauthenticated")
    }).pipe(Effect.scoped)
  )

  it.live("an undeclared status is an HttpClientError (undeclared status code), as for HTTP calls", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer({
        refuse: () => ({ status: 502, body: "bad gateway", contentType: "text/plain" })
      })
      const error = yield* Effect.flip(streamsOf(server.origin).watchHealth().pipe(Stream.runDrain))
      assert.strictEqual(error._tag, "HttpClientError")
      if (error._tag !== "HttpClientError") return
      assert.strictEqual(error.reason._tag, "DecodeError")
      assert.include(error.message, "undeclared status code")
    }).pipe(Effect.scoped)
  )

  it.live("a 200 instead of the upgrade is an HttpClientError, not a stream of nothing", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer({ refuse: () => ({ status: 200, body: "{}" }) })
      const error = yield* Effect.flip(streamsOf(server.origin).watchHealth().pipe(Stream.runDrain))
      assert.strictEqual(error._tag, "HttpClientError")
      if (error._tag !== "HttpClientError") return
      assert.strictEqual(error.reason._tag, "StatusCodeError")
      assert.include(error.message, "101")
    }).pipe(Effect.scoped)
  )
})

describe("a server that never answers the upgrade", () => {
  it.live("the stream fails with a TransportError once the handshake timeout passes, through the client's option", () =>
    Effect.gen(function* () {
      const silent = yield* silentServer
      const client = yield* GatehouseClient.pipe(
        Effect.provide(
          GatehouseClient.layer({
            baseUrl: `http://127.0.0.1:${silent.port}`,
            apiKey: "gh_test_key",
            handshakeTimeout: "300 millis"
          })
        )
      )
      const error = yield* Effect.flip(Stream.runDrain(client.health.watch()))
      assert.strictEqual(error._tag, "HttpClientError")
      if (error._tag !== "HttpClientError") return
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.match(String((error.reason.cause as Error | undefined)?.message), /handshake has timed out/)
      // It was the server that did not answer: the connection had been made.
      assert.strictEqual(yield* Effect.promise(() => silent.connected).pipe(Effect.as(true)), true)
    }).pipe(Effect.scoped)
  )
})
