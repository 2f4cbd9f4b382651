import { Health } from "@gatehouse-edge/core"
import { Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { GatehouseApi } from "../api/GatehouseApi.js"
import { checkSameOrigin, isWebSocketUpgrade, streamToWebSocket } from "../server/WebSocketSession.js"
import { makeHealthRenderer, type RenderedHealth } from "./HealthRendering.js"

/**
 * The health map, then at most one frame per second and only when a status (or the set of routes) changed.
 * Every client samples the one shared rendering, so N watchers cost nothing upstream.
 */
export const healthFrames = (render: Effect.Effect<RenderedHealth>) =>
  Stream.tick("1 second").pipe(
    Stream.mapEffect(() => render),
    Stream.changesWith((a, b) => a.statuses === b.statuses),
    Stream.map((rendered) => rendered.json)
  )

/** Handlers of the `health` group. */
export const HealthHandlers = HttpApiBuilder.group(GatehouseApi, "health", (handlers) =>
  Effect.gen(function* () {
    const render = makeHealthRenderer(yield* Health)
    return handlers.handle("get", ({ request }) =>
      isWebSocketUpgrade(request)
        ? Effect.andThen(checkSameOrigin(request), streamToWebSocket(healthFrames(render)))
        : Effect.map(render, (rendered) =>
            HttpServerResponse.uint8Array(rendered.bytes, { contentType: "application/json" })
          )
    )
  })
)
