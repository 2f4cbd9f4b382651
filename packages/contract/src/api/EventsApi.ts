import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { Event } from "../domain/index.js"
import { EventsQuery } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** The event history. */
export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/events", { query: EventsQuery, success: Schema.Array(Event) })
      .annotateMerge(requires("events:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Event history",
          description:
            "Events newest last. `since`: only events after this id; `limit` (1–1000, default 100): the newest n; " +
            "`category`: one category. WebSocket on the same path: the matching history, then live events; with " +
            "`since`, the history is every stored event after it, whatever the limit. A consumer that does not " +
            "keep up is closed with 1008: resume with `since` = the last id received."
        })
      )
  )
  .middleware(Authorization) {}
