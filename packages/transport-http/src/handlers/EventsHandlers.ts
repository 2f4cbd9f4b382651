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
      // A `since` the history cannot continue from is refused before the upgrade, with the typed 410/404 of a
      // plain GET, which a client's refused upgrade decodes; reading no events (limit 0) still checks it, for the
      // category followed (what other categories lost, such as failed sign-ins beyond their share, is not its loss).
      const resumable =
        query.since === undefined
          ? Effect.void
          : Effect.asVoid(events.history({ since: query.since, limit: 0, category: query.category }))
      return streamOrPlain(
        StreamEndpoints.events,
        request,
        (endpoint) => Effect.andThen(resumable, serveStream(endpoint, events.follow(eventQuery))),
        events.history(eventQuery)
      )
    })
  })
)
