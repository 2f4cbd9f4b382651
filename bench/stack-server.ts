/**
 * The intermediate servers of bench/http-stack.ts: the layers of Gatehouse's HTTP stack added one at a time, each
 * answering `GET /api/v1/version` with the same JSON as the real server.
 *
 *   node --import tsx bench/stack-server.ts <effect-router|http-api|http-api-responses> <port>
 *
 * `effect-router`: effect's Node HTTP server and router, one route answering fixed bytes (a fiber per request,
 * the request and response objects, routing). `http-api`: an HttpApi with that one endpoint, its success schema
 * encoded per request (HttpApi routing, parameter decoding, response encoding), no middleware.
 * `http-api-responses`: that API behind Gatehouse's outermost middleware (`layerApiResponses`: request id, body
 * limit, per-client request count, error bodies, access log at `warn`, as in the `gatehouse, no log` row).
 * Prints "ready".
 */
import { createServer } from "node:http"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { layerApiResponses } from "@gatehouse-edge/transport-http"
import { Effect, Layer, References, Schema } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

const [variant, port] = process.argv.slice(2)
const version = { version: "0.1.0", commit: "bench" }
const body = JSON.stringify(version)

const VersionInfo = Schema.Struct({ version: Schema.String, commit: Schema.String })
class SystemApi extends HttpApiGroup.make("system").add(
  HttpApiEndpoint.get("version", "/version", { success: VersionInfo })
) {}
class BenchApi extends HttpApi.make("bench").add(SystemApi).prefix("/api/v1") {}

const api = HttpApiBuilder.layer(BenchApi).pipe(
  Layer.provide(
    HttpApiBuilder.group(BenchApi, "system", (handlers) => handlers.handle("version", () => Effect.succeed(version)))
  )
)

const routes =
  variant === "effect-router"
    ? HttpRouter.add(
        "GET",
        "/api/v1/version",
        Effect.succeed(HttpServerResponse.text(body, { contentType: "application/json" }))
      )
    : variant === "http-api"
      ? api
      : variant === "http-api-responses"
        ? Layer.merge(api, layerApiResponses({ maxBodyBytes: 1024 * 1024 }))
        : undefined
if (routes === undefined) throw new Error(`unknown variant ${variant}: effect-router | http-api | http-api-responses`)

const ready = Layer.effectDiscard(Effect.sync(() => process.stdout.write("ready\n")))
HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.merge(ready),
  Layer.provide(Layer.succeed(References.MinimumLogLevel, "Warn")),
  Layer.provide(NodeHttpServer.layer(createServer, { host: "127.0.0.1", port: Number(port) })),
  Layer.launch,
  NodeRuntime.runMain
)
