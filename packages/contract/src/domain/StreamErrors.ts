import * as Schema from "effect/Schema"
import { ApiError } from "./ApiError.js"
import { closeCodeOf } from "./ErrorCode.js"

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

/** A limit in bytes as a close reason gives it: `16 MiB`, `64 KiB`, `1000 bytes`. */
export const bytesInUnits = (bytes: number): string => {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

/**
 * A WebSocket client that does not read what the server sends: its queued bytes passed the limit, or it did not
 * drain them in time. Dropped (1008) so it cannot cost the server memory or hold back anyone else. With
 * `budget_bytes`, what passed it was the client's streams together (each of them may be reading), not this one.
 */
export class ClientTooSlow extends ApiError<ClientTooSlow>()("ClientTooSlow", {
  code: "slow_consumer",
  fields: { queued_bytes: Schema.Int, budget_bytes: Schema.optionalKey(Schema.Int) },
  message: (e) =>
    e.budget_bytes === undefined
      ? "client too slow"
      : `client too slow: its streams together queued more than ${bytesInUnits(e.budget_bytes)}`
}) {}

// How the reasons of both slow consumers start (their messages above).
const slowConsumerReason = /^(client too slow|subscriber fell more than \d+ events behind)/

/**
 * Whether a WebSocket close is a consumer too slow ({@link SubscriberTooSlow}, {@link ClientTooSlow}): a 1008 like
 * a refusal's, but the same stream opened again works, and picks up as its reconnects do (events: after the last
 * id, without a gap), where a refused credential or permission would be refused again.
 */
export const isSlowConsumerClose = (code: number, reason: string): boolean =>
  code === closeCodeOf("slow_consumer") && slowConsumerReason.test(reason)
