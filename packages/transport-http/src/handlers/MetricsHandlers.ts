import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Uptime } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { serveStream, streamOrPlain } from "../websocket/StreamEndpoint.js"

/**
 * Handlers of the `metrics` group: one page of uptime, or the page again after every sample (WebSocket). A page is
 * plain JSON data built by the core (up to 100,000 points for 1,000 routes), so it is serialized directly rather
 * than checked against its schema point by point, as the stream's frames are (`framesAsJson`).
 */
export const MetricsHandlers = HttpApiBuilder.group(GatehouseApi, "metrics", (handlers) =>
  Effect.gen(function* () {
    const uptime = yield* Uptime
    return handlers.handle("uptime", ({ request, query }) =>
      streamOrPlain(
        StreamEndpoints.uptime,
        request,
        // The query is checked before the upgrade: a bad one is a plain 400.
        (endpoint) => Effect.flatMap(uptime.watch(query), (pages) => serveStream(endpoint, pages)),
        Effect.map(uptime.query(query), (page) =>
          HttpServerResponse.text(JSON.stringify(page), { contentType: "application/json" })
        )
      )
    )
  })
)
