import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { layerApiResponses } from "../src/middleware/ApiResponses.js"
import { request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// A router with routes that misbehave, behind the same middleware as the API.
const startFaultyApp = Effect.gen(function* () {
  const logged: Array<string> = []
  const routes = Layer.mergeAll(
    HttpRouter.add("GET", "/boom", Effect.die(new Error("database password is hunter2"))),
    HttpRouter.add("GET", "/ok", Effect.succeed(HttpServerResponse.text("fine"))),
    layerApiResponses({ maxBodyBytes: 1024 })
  )
  const app = HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
    Layer.provide(Logger.layer([Logger.make((options) => logged.push(String(options.cause)))]))
  )
  const context = yield* Layer.build(app)
  const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(Effect.provideContext(context))
  return { origin, logged }
})

describe("error bodies and request ids", () => {
  it.live("turns a defect into a generic 500 with a request id, and logs the cause under that id", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { origin, logged } = yield* startFaultyApp
        const reply = yield* request(`${origin}/boom`)
        assert.strictEqual(reply.status, 500)
        assert.strictEqual(reply.json.error.code, "internal")
        assert.strictEqual(reply.json.error.message, "internal error")
        assert.notInclude(reply.text, "hunter2")
        const requestId = reply.json.error.request_id as string
        assert.strictEqual(reply.headers.get("x-request-id"), requestId)
        assert.isTrue(logged.some((line) => line.includes("hunter2")))
        const after = yield* request(`${origin}/ok`)
        assert.strictEqual(after.status, 200)
      })
    )
  )

  it.live("echoes a well-formed x-request-id and replaces a malformed one", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { origin } = yield* startFaultyApp
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
