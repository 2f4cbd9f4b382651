import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { Event, EventNotFound, EventsTrimmed, toWireError } from "../domain/index.js"
import { EventsQuery } from "./Parameters.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** The event history. */
export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("list", "/events", {
      query: EventsQuery,
      success: Schema.Array(Event),
      error: [toWireError(EventsTrimmed), toWireError(EventNotFound)]
    })
      .annotateMerge(requires("events:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Event history",
          description:
            "Events newest last. `limit` (1–1000, default 100): without `since`, the newest n; with `since`, the " +
            "oldest n after that id, so a client that polls continues with `since` = the last id it got, until a " +
            "page holds fewer than `limit`, and skips none. `category`: one category. `since` must be an event " +
            "the history still holds, with nothing dropped after it. One the history cap dropped (older than " +
            "every kept event; with `events.history: 0`, any but the newest, which resumes with nothing missed), " +
            "or one after which failed sign-ins were dropped beyond their tenth of the history (without " +
            "`category`, or `auth`), is 410 `gone` (`EventsTrimmed`); an id that was never one of its events " +
            "(another server's, a reset store's, older than its first event) is 404 (`EventNotFound`); either " +
            "way the client cannot catch up, and re-reads the state it keeps and starts again without `since`. " +
            "WebSocket on the same path: the matching history, then live events; with `since`, the history is " +
            "every stored event after it, " +
            "whatever the limit, and a `since` the history cannot continue from is refused before the upgrade " +
            "(410/404), or, trimmed during a long replay, closes the stream with 1008 and that reason. A consumer " +
            "that does not keep up is closed with 1008: resume with `since` = the last id received."
        })
      )
  )
  .middleware(Authorization) {}
