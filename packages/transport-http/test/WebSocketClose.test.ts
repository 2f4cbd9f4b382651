import { assert, describe, it } from "@effect/vitest"
import { isSlowConsumerClose, SshFailed } from "@gatehouse-edge/core/domain"
import { Effect, Layer, Logger, References, Stream } from "effect"
import { HttpServer } from "effect/http"
import { WebSocket } from "ws"
import { waitFor } from "../../../test/support/WaitFor.js"
import { layerNodeHttpServer } from "../src/NodeServer.js"
import { WebSocketConnections } from "../src/websocket/WebSocketConnections.js"
import { WebSocketPolicy } from "../src/websocket/WebSocketPolicy.js"
import { closeReason, serveWebSocket } from "../src/websocket/WebSocketSession.js"
import { openWs } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// What a failed `tail` on a node whose locale is Russian says: 185 bytes of UTF-8 in 115 characters.
const russian =
  "command exited with status 1: tail: не удаётся открыть '/var/log/app.log' для чтения: Нет такого файла или каталога"

/** The close code and reason a plain `ws` client gets from a server that serves `app` at `/x`. */
const closeOf = (detail: string) =>
  Effect.gen(function* () {
    const app = serveWebSocket(() => Stream.fail(new SshFailed({ node: "pve1", detail })))
    const context = yield* Layer.build(
      HttpServer.serve()(app).pipe(
        Layer.provideMerge(layerNodeHttpServer({ host: "127.0.0.1", port: 0 })),
        Layer.provide(WebSocketConnections.layer)
      )
    )
    const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(Effect.provideContext(context))
    return yield* Effect.promise(
      () =>
        new Promise<{ code: number; reason: string }>((resolve) => {
          const ws = new WebSocket(`${origin.replace("http", "ws")}/x`)
          ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
          ws.on("error", () => {})
        })
    )
  })

describe("closing a WebSocket stream", () => {
  it("cuts a reason to the 123 bytes a close frame holds, at a character boundary", () => {
    assert.strictEqual(closeReason("short"), "short")
    for (const reason of [russian, "🙂".repeat(40), `${"a".repeat(122)}é`, "é".repeat(62)]) {
      const cut = closeReason(reason)
      assert.isAtMost(Buffer.byteLength(cut), 123, reason)
      assert.isTrue(cut.endsWith("…"), cut)
      assert.isTrue(reason.startsWith(cut.slice(0, -1)), cut)
      assert.notInclude(cut, "\ufffd")
    }
  })

  it.live("a stream that fails with a long non-ASCII message closes with its error's code, not 1000", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const closed = yield* closeOf(russian)
        assert.notStrictEqual(closed.code, 1000)
        assert.strictEqual(closed.code, (yield* closeOf("tail: no such file")).code)
        assert.include(closed.reason, "не удаётся")
      })
    )
  )

  it.live("a client that stops reading, so answers no ping, is dropped with 1008 and a reason, not cut (1006)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ policy: { pingIntervalMs: 200, closeGraceMs: 60_000 } })
        const ws = yield* openWs(`${h.wsUrl}/events`, { key: h.apiKey })
        // As the typed client does with 256 frames unread: the pings wait in its buffer, unanswered.
        ws.socket.pause()
        // Closed: the stream has ended, its socket (and place) left for the grace; or cut, its socket gone at once.
        yield* waitFor(
          Effect.all([h.openStreams, h.closingStreams]),
          ([open, closing]) => closing === 1 || open === 0,
          "the server to drop the client"
        )
        ws.socket.resume()
        const closed = yield* Effect.promise(() => ws.closed)
        assert.deepStrictEqual(closed, { code: 1008, reason: "client too slow: no answer to ping within 0.2 s" })
        // A reconnecting client takes it for a slow consumer, and follows again.
        assert.isTrue(isSlowConsumerClose(closed.code, closed.reason))
      })
    )
  )

  it.live(
    "a client dropped for not answering pings is a log line naming the code, the reason, the client and path",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const logged: Array<{ message: string; annotations: Record<string, unknown> }> = []
          const capture = Logger.layer([
            Logger.make(({ message, fiber }) =>
              logged.push({
                message: String(message),
                annotations: Object.fromEntries(Object.entries(fiber.getRef(References.CurrentLogAnnotations)))
              })
            )
          ])
          const app = serveWebSocket(() => Stream.never)
          const context = yield* Layer.build(
            HttpServer.serve()(app).pipe(
              Layer.provideMerge(layerNodeHttpServer({ host: "127.0.0.1", port: 0 })),
              Layer.provide(WebSocketConnections.layer),
              Layer.provide(Layer.succeed(WebSocketPolicy, { ...WebSocketPolicy.defaultValue(), pingIntervalMs: 200 })),
              Layer.provide(capture)
            )
          )
          const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(
            Effect.provideContext(context)
          )
          const ws = new WebSocket(`${origin.replace("http", "ws")}/watch?x=1`, { autoPong: false })
          ws.on("error", () => {})
          const closed = yield* Effect.promise(
            () => new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)))
          )
          assert.strictEqual(closed, 1008)
          const line = yield* waitFor(
            Effect.sync(() => logged.find((l) => l.message.startsWith("WebSocket stream closed"))),
            (found) => found !== undefined,
            "the close's log line"
          )
          assert.strictEqual(
            line!.message,
            "WebSocket stream closed with 1008: client too slow: no answer to ping within 0.2 s"
          )
          assert.deepInclude(line!.annotations, { client: "127.0.0.1", path: "/watch" })
        })
      )
  )

  it.live(
    "a client whose documents keep the server busy for several ping intervals is not taken for a dead peer",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* startHarness({ policy: { pingIntervalMs: 400 } })
          // Two documents of ~100 KB sent at once: the reader holds 64 KiB at most, so the socket is paused (pongs
          // unread) while the first is validated, which takes longer than two intervals.
          const doc = Array.from(
            { length: 3000 },
            (_, i) => `app-${i}:\n  host: 10.0.0.${i % 250}\n  port: ${1000 + i}\n`
          )
          const ws = yield* openWs(`${h.wsUrl}/route/validate`, { key: h.apiKey })
          const answered = new Promise<"answered">((resolve) => {
            let done = 0
            ws.socket.on("message", (data) => {
              if (String(data).startsWith('{"done"') && ++done === 2) resolve("answered")
            })
          })
          ws.send(doc.join(""))
          ws.send(doc.join(""))
          const outcome = yield* Effect.promise(() => Promise.race([answered, ws.closed]))
          assert.strictEqual(outcome, "answered", JSON.stringify(outcome))
        })
      ),
    60_000
  )
})
