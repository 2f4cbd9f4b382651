import { ClientTooSlow, type ErrorCode } from "@gatehouse-edge/core/domain"
import * as Data from "effect/Data"

/** Human units for a limit in a close reason: `16 MiB`, `64 KiB`, `1000 bytes`. */
const sizeOf = (bytes: number): string => {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

/**
 * A stream waited `drainTimeoutMs` for room in its client's budget of queued bytes, or in the server's. Its message,
 * the close reason, says which budget, so a client with many streams learns that it is their sum, not this stream
 * alone, that it did not read.
 */
export class QueuedTooMuch extends Data.TaggedError("QueuedTooMuch")<{
  readonly budget: "client" | "server"
  readonly message: string
  readonly queued_bytes: number
}> {
  /**
   * The close it gets, as the error code it stands for: past its client's own budget the client is too slow
   * (`slow_consumer`, 1008: not retried); past the server's, which other clients filled, it is the server that is
   * busy (`rate_limited`, 1013 "try again later": a client that reads reconnects).
   */
  get errorCode(): ErrorCode {
    return this.budget === "client" ? ClientTooSlow.apiError.code : "rate_limited"
  }
}

/** The {@link QueuedTooMuch} of the client's budget or the server's, `limit` bytes. */
export const queuedTooMuch = (budget: "client" | "server", limit: number, queued_bytes: number): QueuedTooMuch =>
  new QueuedTooMuch({
    budget,
    message:
      budget === "client"
        ? `client too slow: its streams together queued more than ${sizeOf(limit)}`
        : `server busy: the streams of all clients together queued more than ${sizeOf(limit)}; try again later`,
    queued_bytes
  })
