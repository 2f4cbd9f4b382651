import * as http from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger, Queue, Scope } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { WebSocket } from "ws"
import { waitFor } from "../../../test/support/WaitFor.js"
import { AccessLogWriter } from "../src/middleware/AccessLog.js"
import { layerApiResponses } from "../src/middleware/ApiResponses.js"
import { withRequestIds } from "../src/middleware/RequestIds.js"
import { layerNodeHttpServer } from "../src/NodeServer.js"
import { request } from "./support/Http.js"

/** An access-log line as the test sees it, through the loggers or a direct writer. */
interface Line {
  readonly status?: unknown
  readonly request_id?: unknown
  readonly duration_ms?: unknown
}

/**
 * The API's middleware on a real loopback server, with `/slow`, whose handler tells the test it runs and then
 * waits for good, `/held`, a WebSocket that does the same once upgraded, and `/ok`. Access lines go through the loggers (the `http` entries), or to a direct writer as
 * `gatehouse serve` has; the server lives in `scope`, so a test can shut it down.
 */
const startSlowApp = (scope: Scope.Scope, options: { readonly directAccessLog: boolean }) =>
  Effect.gen(function* () {
    const lines: Array<Line> = []
    const running = yield* Queue.unbounded<void>()
    const recorder = withRequestIds(
      Logger.make((options) => {
        // As the server's JSON lines show it, annotations included.
        const entry = JSON.parse(Logger.formatJson.log(options))
        if (JSON.stringify(entry.message) === JSON.stringify(["http"]) || entry.message === "http") {
          lines.push(entry.annotations)
        }
      })
    )
    const routes = Layer.mergeAll(
      HttpRouter.add("GET", "/slow", Effect.andThen(Queue.offer(running, undefined), Effect.never)),
      HttpRouter.add("GET", "/ok", Effect.succeed(HttpServerResponse.text("fine"))),
      // A WebSocket that holds its connection once the handshake is done, reading nothing.
      HttpRouter.add(
        "GET",
        "/held",
        Effect.scoped(
          Effect.gen(function* () {
            const socket = yield* Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.upgrade)
            // Acquiring the reader answers the handshake; nothing is read from it.
            yield* socket.reader
            yield* Queue.offer(running, undefined)
            return yield* Effect.never
          })
        )
      ),
      layerApiResponses({ maxBodyBytes: 1024 })
    )
    const writer = Layer.succeed(AccessLogWriter)((entry) => lines.push(entry))
    const app = HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
      // No grace on shutdown: what is in flight is interrupted at once.
      Layer.provideMerge(layerNodeHttpServer({ host: "127.0.0.1", port: 0, gracefulShutdownMs: 0 })),
      Layer.provide(options.directAccessLog ? [Logger.layer([]), writer] : [Logger.layer([recorder])])
    )
    const context = yield* Layer.buildWithScope(app, scope)
    const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(Effect.provideContext(context))
    return { origin, lines, handlerRunning: Queue.take(running) }
  })

/** A GET with `x-request-id: id` that has not been answered; `abort` closes its connection, `outcome` tells what it got. */
const startRequest = (url: string, id: string) =>
  Effect.sync(() => {
    const outgoing = http.request(url, { headers: { "x-request-id": id } })
    const outcome = new Promise<string>((resolve) => {
      outgoing.on("response", (response) => {
        response.resume()
        resolve(`status ${response.statusCode}`)
      })
      outgoing.on("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`))
    })
    outgoing.end()
    return { abort: Effect.sync(() => outgoing.destroy()), outcome: Effect.promise(() => outcome) }
  })

/** Opens a WebSocket with `x-request-id: id`, once its handshake is done (scoped: cut at the end of the test). */
const openSocket = (url: string, id: string) =>
  Effect.acquireRelease(
    Effect.callback<WebSocket, Error>((resume) => {
      const socket = new WebSocket(url, { headers: { "x-request-id": id } })
      socket.on("open", () => resume(Effect.succeed(socket)))
      socket.on("error", (error) => resume(Effect.fail(error)))
    }),
    (socket) => Effect.sync(() => socket.terminate())
  )

const linesOf = (lines: ReadonlyArray<Line>, id: string) => lines.filter((line) => line.request_id === id)

describe("requests that end by interruption", () => {
  for (const directAccessLog of [false, true]) {
    const writer = directAccessLog ? "a direct writer" : "the loggers"
    it.live(`a request its client aborts gets exactly one access line, with 499 (through ${writer})`, () =>
      Effect.scoped(
        Effect.gen(function* () {
          const app = yield* startSlowApp(yield* Effect.scope, { directAccessLog })
          const slow = yield* startRequest(`${app.origin}/slow`, "abort-me-1")
          yield* app.handlerRunning
          yield* slow.abort
          const [line] = yield* waitFor(
            Effect.sync(() => linesOf(app.lines, "abort-me-1")),
            (found) => found.length > 0,
            "the access line of the aborted request"
          )
          assert.strictEqual(line?.status, 499)
          assert.isAtLeast(Number(line?.duration_ms), 0)
          // A later request's line comes after anything the aborted one could still write: still one line.
          const after = yield* request(`${app.origin}/ok`, { headers: { "x-request-id": "after-1" } })
          assert.strictEqual(after.status, 200)
          yield* waitFor(
            Effect.sync(() => linesOf(app.lines, "after-1")),
            (found) => found.length === 1,
            "the access line of the request after"
          )
          assert.strictEqual(linesOf(app.lines, "abort-me-1").length, 1)
        })
      )
    )
  }

  it.live("a WebSocket the server's shutdown interrupts after its handshake keeps the 101 its client got", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const serverScope = yield* Scope.make()
        const app = yield* startSlowApp(serverScope, { directAccessLog: true })
        yield* openSocket(`${app.origin.replace(/^http/, "ws")}/held`, "ws-shut-down")
        yield* app.handlerRunning
        yield* Scope.close(serverScope, Exit.void)
        assert.deepStrictEqual(
          linesOf(app.lines, "ws-shut-down").map((line) => line.status),
          [101]
        )
      })
    )
  )

  it.live("a request the server's shutdown interrupts is logged with the 503 it answers, not as a client abort", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const serverScope = yield* Scope.make()
        const app = yield* startSlowApp(serverScope, { directAccessLog: true })
        const slow = yield* startRequest(`${app.origin}/slow`, "in-flight-1")
        yield* app.handlerRunning
        yield* Scope.close(serverScope, Exit.void)
        const outcome = yield* slow.outcome
        assert.deepStrictEqual(
          linesOf(app.lines, "in-flight-1").map((line) => line.status),
          [503]
        )
        // What the client got, if the connection was still there to answer on.
        assert.include(["status 503", "error ECONNRESET"], outcome)
      })
    )
  )
})
