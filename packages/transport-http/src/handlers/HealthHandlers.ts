import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Health } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { serveStream, streamOrPlain } from "../websocket/StreamEndpoint.js"
import { makeHealthRenderer } from "./HealthRendering.js"

/** Handlers of the `health` group: the map as one shared rendering, or the shared, throttled health feed. */
export const HealthHandlers = HttpApiBuilder.group(GatehouseApi, "health", (handlers) =>
  Effect.gen(function* () {
    const health = yield* Health
    const render = makeHealthRenderer(health)
    const snapshot = Effect.map(render, (rendered) =>
      HttpServerResponse.uint8Array(rendered.bytes, { contentType: "application/json" })
    )
    return handlers.handle("get", ({ request }) =>
      streamOrPlain(StreamEndpoints.health, request, (endpoint) => serveStream(endpoint, health.changes), snapshot)
    )
  })
)
