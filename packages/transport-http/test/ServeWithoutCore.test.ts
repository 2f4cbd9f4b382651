import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Health } from "@gatehouse-edge/core/services"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { serveWithoutCore } from "../src/ServeWithoutCore.js"
import { WebSocketConnections } from "../src/websocket/WebSocketConnections.js"
import { WebSocketPolicy } from "../src/websocket/WebSocketPolicy.js"
import { request } from "./support/Http.js"

describe("serveWithoutCore", () => {
  it.live(
    "serves routes in a context without the core's services; routes take theirs when built; the rest stays",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const routes = Layer.mergeAll(
            // What a request's context holds.
            HttpRouter.add(
              "GET",
              "/keys",
              Effect.withFiber((fiber) =>
                Effect.succeed(HttpServerResponse.jsonUnsafe([...fiber.context.mapUnsafe.keys()]))
              )
            ),
            // A core service taken when the route is built answers: it is in the server's context.
            Layer.unwrap(
              Effect.map(Effect.service(Health), (health) =>
                HttpRouter.add(
                  "GET",
                  "/health",
                  Effect.map(health.snapshot, (map) => HttpServerResponse.jsonUnsafe(map))
                )
              )
            )
          )
          const app = serveWithoutCore(routes).pipe(
            Layer.provideMerge(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: 0 })),
            Layer.provide(
              Health.layerTest({ web: { status: "healthy", latency_ms: 1, uptime_s: 5, last_check: null } })
            ),
            Layer.provide(Layer.succeed(WebSocketPolicy)({ ...WebSocketPolicy.defaultValue(), maxConnections: 7 }))
          )
          const context = yield* Layer.build(app)
          const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(
            Effect.provideContext(context)
          )

          const keys = (yield* request(`${origin}/keys`)).json as Array<string>
          assert.deepStrictEqual(
            keys.filter((key) => key.startsWith("@gatehouse-edge/core/")),
            []
          )
          // The HTTP stack's own services and settings are there.
          for (const key of [HttpServer.HttpServer.key, WebSocketPolicy.key, "effect/http/HttpServerRequest"]) {
            assert.include(keys, key)
          }
          const health = yield* request(`${origin}/health`)
          assert.strictEqual(health.status, 200)
          assert.strictEqual(health.json.web.status, "healthy")
        })
      ),
    30_000
  )

  it("refuses, when type-checked, an app with a route that takes a core service per request", () => {
    const answer = HttpServerResponse.empty()
    // Health per request: requests run without the core's services, so this route would fail on every call.
    const perRequest = HttpRouter.add("GET", "/health", Effect.as(Effect.service(Health), answer))
    // @ts-expect-error the core's Health is not in a request's context: take it when the route is built
    const refused = () => serveWithoutCore(perRequest)
    // A service of the HTTP stack per request is in the request's context: accepted.
    const accepted = () =>
      serveWithoutCore(HttpRouter.add("GET", "/n", Effect.as(Effect.service(WebSocketConnections), answer)))
    // The check is the type-check above (`npm test` runs tsc on the tests first); both still build a layer.
    assert.isTrue(Layer.isLayer(refused()) && Layer.isLayer(accepted()))
  })
})
