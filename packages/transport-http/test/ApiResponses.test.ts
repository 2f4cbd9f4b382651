import { createServer } from "node:http"
import * as net from "node:net"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { AccessLogWriter } from "../src/middleware/AccessLog.js"
import { layerApiResponses } from "../src/middleware/ApiResponses.js"
import { withRequestIds } from "../src/middleware/RequestIds.js"
import { request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// A router with routes that misbehave, behind the same middleware as the API; its access lines go through the
// loggers, or to a direct writer (as `gatehouse serve` has) that records them among the entries.
const startFaultyApp = (options: { readonly directAccessLog?: boolean } = {}) =>
  Effect.gen(function* () {
    const logged: Array<string> = []
    // Each entry as the server's JSON lines show it (annotations included), then its cause.
    const entries: Array<{ readonly message: unknown; readonly annotations: Record<string, unknown> }> = []
    const recorder = withRequestIds(
      Logger.make((options) => {
        entries.push(JSON.parse(Logger.formatJson.log(options)))
        logged.push(String(options.cause))
      })
    )
    const routes = Layer.mergeAll(
      HttpRouter.add("GET", "/noisy", Effect.as(Effect.logInfo("handler says hi"), HttpServerResponse.text("said"))),
      HttpRouter.add("GET", "/boom", Effect.die(new Error("database password is hunter2"))),
      HttpRouter.add("GET", "/ok", Effect.succeed(HttpServerResponse.text("fine"))),
      layerApiResponses({ maxBodyBytes: 1024 })
    )
    const writer = Layer.succeed(AccessLogWriter)((entry) =>
      entries.push({ message: "http", annotations: { ...entry } })
    )
    const app = HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
      Layer.provide([Logger.layer([recorder]), options.directAccessLog === true ? writer : Layer.empty])
    )
    const context = yield* Layer.build(app)
    const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(Effect.provideContext(context))
    return { origin, logged, entries, recorder }
  })

/** Sends raw bytes on a fresh connection and reads everything until the server closes it. */
const rawRequest = (origin: string, text: string) =>
  Effect.promise(
    () =>
      new Promise<string>((resolve, reject) => {
        const url = new URL(origin)
        const socket = net.connect(Number(url.port), url.hostname)
        let received = ""
        socket.on("data", (chunk) => (received += chunk))
        socket.on("error", reject)
        socket.on("close", () => resolve(received))
        socket.end(text)
      })
  )

describe("error bodies and request ids", () => {
  it.live("every log line written while serving a request carries its request id, and only those", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { origin, entries, recorder } = yield* startFaultyApp()
        const first = yield* request(`${origin}/noisy`)
        const second = yield* request(`${origin}/noisy`, { headers: { "x-request-id": "trace-42" } })
        assert.strictEqual(second.headers.get("x-request-id"), "trace-42")
        const ids = (message: string) =>
          entries
            .filter((entry) => JSON.stringify(entry.message).includes(message))
            .map((entry) => entry.annotations.request_id)
        assert.deepStrictEqual(ids("handler says hi"), [first.headers.get("x-request-id"), "trace-42"])
        assert.deepStrictEqual(ids("http"), [first.headers.get("x-request-id"), "trace-42"])
        yield* Effect.logInfo("outside any request").pipe(Effect.provide(Logger.layer([recorder])))
        assert.deepStrictEqual(ids("outside any request"), [undefined])
      })
    )
  )

  it.live("turns a defect into a generic 500 with a request id, and logs the cause under that id", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { origin, logged, entries } = yield* startFaultyApp()
        const reply = yield* request(`${origin}/boom`)
        assert.strictEqual(reply.status, 500)
        assert.strictEqual(reply.json.error.code, "internal")
        assert.strictEqual(reply.json.error.message, "internal error")
        assert.notInclude(reply.text, "hunter2")
        const requestId = reply.json.error.request_id as string
        assert.strictEqual(reply.headers.get("x-request-id"), requestId)
        assert.isTrue(logged.some((line) => line.includes("hunter2")))
        const failure = entries.find((entry) => JSON.stringify(entry.message).includes("request failed"))
        assert.strictEqual(failure?.annotations.request_id, requestId)
        const after = yield* request(`${origin}/ok`)
        assert.strictEqual(after.status, 200)
      })
    )
  )

  it.live("writes a failed request's access line after the line of its error, through a direct writer too", () =>
    Effect.scoped(
      Effect.gen(function* () {
        for (const directAccessLog of [false, true]) {
          const { origin, entries } = yield* startFaultyApp({ directAccessLog })
          const reply = yield* request(`${origin}/boom`)
          const requestId = reply.json.error.request_id as string
          const index = (message: string) =>
            entries.findIndex(
              (entry) => JSON.stringify(entry.message).includes(message) && entry.annotations.request_id === requestId
            )
          assert.isAtLeast(index("request failed"), 0)
          assert.isAbove(index('"http"'), index("request failed"), `direct writer: ${directAccessLog}`)
        }
      })
    )
  )

  it.live("echoes a well-formed x-request-id and replaces a malformed one", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { origin } = yield* startFaultyApp()
        const echoed = yield* request(`${origin}/ok`, { headers: { "x-request-id": "abc-123" } })
        assert.strictEqual(echoed.headers.get("x-request-id"), "abc-123")
        const replaced = yield* request(`${origin}/ok`, { headers: { "x-request-id": "bad id\u00e9" } })
        assert.notStrictEqual(replaced.headers.get("x-request-id"), "bad id\u00e9")
        assert.match(replaced.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/)
      })
    )
  )

  it.live("answers unknown endpoints with 404 in the shared body", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/nope`, { key: h.apiKey })
        assert.strictEqual(reply.status, 404)
        assert.deepStrictEqual(reply.json.error, { code: "not_found", message: "no such endpoint: GET /api/v1/nope" })
      })
    )
  )

  it.live("answers a served path with another method with 405 and the methods it takes (Allow)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (const method of ["DELETE", "OPTIONS", "POST"]) {
          const reply = yield* request(`${h.baseUrl}/health`, { key: h.apiKey, method })
          assert.strictEqual(reply.status, 405, method)
          assert.strictEqual(reply.headers.get("allow"), "GET, HEAD", method)
          assert.deepStrictEqual(reply.json.error, {
            code: "method_not_allowed",
            message: `${method} is not allowed on /api/v1/health: use GET, HEAD`
          })
        }
        const alias = yield* request(`${h.baseUrl}/route/web`, { key: h.apiKey, method: "PUT" })
        assert.strictEqual(alias.status, 405)
        assert.strictEqual(alias.headers.get("allow"), "GET, HEAD")
      })
    )
  )

  it.live("truncates a long unknown path in the 404 message", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/${"z".repeat(5000)}`, { key: h.apiKey })
        assert.strictEqual(reply.status, 404)
        assert.strictEqual(reply.json.error.code, "not_found")
        assert.isAtMost(reply.json.error.message.length, 200)
        assert.match(reply.json.error.message, /^no such endpoint: GET \/api\/v1\/zzzz+… \(5008 characters\)$/)
      })
    )
  )

  it.live("answers headers that are too large with 431 in the shared body, and stays up", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* rawRequest(
          h.origin,
          `GET /api/v1/version HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(32 * 1024)}\r\n\r\n`
        )
        assert.match(reply, /^HTTP\/1\.1 431 /)
        assert.match(reply, /content-type: application\/json/i)
        const body = JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4))
        assert.strictEqual(body.error.code, "headers_too_large")
        const garbage = yield* rawRequest(h.origin, "NOT HTTP AT ALL\r\n\r\n")
        assert.match(garbage, /^HTTP\/1\.1 400 /)
        assert.strictEqual(JSON.parse(garbage.slice(garbage.indexOf("\r\n\r\n") + 4)).error.code, "invalid_argument")
        const after = yield* request(`${h.baseUrl}/version`)
        assert.strictEqual(after.status, 200)
      })
    )
  )

  it.live("serves /version without credentials", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/version`)
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json, { version: "1.2.3", commit: "abc" })
      })
    )
  )
})
