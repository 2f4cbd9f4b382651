import { Events } from "@gatehouse-edge/core"
import { Event } from "@gatehouse-edge/core/domain"
import { Effect, Stream } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatehouseApi } from "../api/GatehouseApi.js"
import { CloseWith, checkSameOrigin, isWebSocketUpgrade, streamToWebSocket } from "../server/WebSocketSession.js"
import { jsonFrame } from "./Frames.js"

const DEFAULT_LIMIT = 100

/** Handlers of the `events` group. */
export const EventsHandlers = HttpApiBuilder.group(GatehouseApi, "events", (handlers) =>
  Effect.gen(function* () {
    const events = yield* Events
    return handlers.handle("list", ({ request, query }) => {
      const eventQuery = { since: query.since, limit: query.limit ?? DEFAULT_LIMIT, category: query.category }
      if (!isWebSocketUpgrade(request)) return events.history(eventQuery)
      const frames = events.follow(eventQuery).pipe(
        Stream.map(jsonFrame(Event)),
        Stream.mapError((slow) => new CloseWith({ code: 1008, reason: slow.message }))
      )
      return Effect.andThen(checkSameOrigin(request), streamToWebSocket(frames))
    })
  })
)
