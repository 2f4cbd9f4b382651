import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Events } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { serveStream, streamOrPlain } from "../websocket/StreamEndpoint.js"

const DEFAULT_LIMIT = 100

/** Handlers of the `events` group: the history, or the history then live events. */
export const EventsHandlers = HttpApiBuilder.group(GatehouseApi, "events", (handlers) =>
  Effect.gen(function* () {
    const events = yield* Events
    return handlers.handle("list", ({ request, query }) => {
      const eventQuery = { since: query.since, limit: query.limit ?? DEFAULT_LIMIT, category: query.category }
      return streamOrPlain(
        StreamEndpoints.events,
        request,
        (endpoint) => serveStream(endpoint, events.follow(eventQuery)),
        events.history(eventQuery)
      )
    })
  })
)
