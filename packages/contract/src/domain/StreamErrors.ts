import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"

/**
 * A live consumer of events fell too far behind and was dropped so it could not hold back the producer or the other
 * consumers. It resumes without a gap by following again from the last item it received (for events:
 * `since` = the last event id). A stream that ends this way closes with 1008.
 */
export class SubscriberTooSlow extends ApiError<SubscriberTooSlow>()("SubscriberTooSlow", {
  code: "slow_consumer",
  fields: { buffer_size: Schema.Int },
  message: (e) => `subscriber fell more than ${e.buffer_size} events behind`
}) {}

/** The server is shutting down: open streams end with 1001 and new work is refused. */
export class ServerShuttingDown extends ApiError<ServerShuttingDown>()("ServerShuttingDown", {
  code: "shutting_down",
  fields: {},
  message: () => "server shutting down"
}) {}

/**
 * A WebSocket client that does not read what the server sends: its queued bytes passed the limit, or it did not
 * drain them in time. Dropped (1008) so it cannot cost the server memory or hold back anyone else.
 */
export class ClientTooSlow extends ApiError<ClientTooSlow>()("ClientTooSlow", {
  code: "slow_consumer",
  fields: { queued_bytes: Schema.Int },
  message: () => "client too slow"
}) {}
