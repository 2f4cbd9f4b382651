import { bytesInUnits, ClientTooSlow, RateLimited } from "@gatehouse-edge/core/domain"

/**
 * A stream waited `drainTimeoutMs` for room in its client's budget of queued bytes, or in the server's. Past its
 * client's own budget the client is too slow (`ClientTooSlow`, 1008: not retried); past the server's, which other
 * clients filled, it is the server that is busy (`RateLimited`, 1013 "try again later": a client that reads
 * reconnects). The message, the close reason, says which budget, so a client with many streams learns that it is
 * their sum, not this stream alone, that it did not read.
 */
export type QueuedTooMuch = ClientTooSlow | RateLimited

/** The {@link QueuedTooMuch} of the client's budget or the server's, `limit` bytes. */
export const queuedTooMuch = (budget: "client" | "server", limit: number, queued_bytes: number): QueuedTooMuch =>
  budget === "client"
    ? new ClientTooSlow({ queued_bytes, budget_bytes: limit })
    : new RateLimited({
        message: `server busy: the streams of all clients together queued more than ${bytesInUnits(limit)}; try again later`,
        retry_after_s: 1
      })
