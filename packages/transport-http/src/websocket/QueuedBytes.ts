import * as Data from "effect/Data"

/**
 * Bytes written for WebSocket clients that the kernel has not taken yet (what `bufferedAmount` counts), summed over
 * a set of streams (one client's, the server's), with the streams waiting for room in it.
 */
export class QueuedBytes {
  bytes = 0
  /** Checked each time bytes leave: each admits itself once it fits. */
  readonly waiters = new Set<() => void>()

  /**
   * Whether `more` bytes fit under `limit`. A frame larger than the whole limit fits once nothing else is queued:
   * it is sent, then drained like any other (the per-stream limit treats it alike).
   */
  fits(more: number, limit: number): boolean {
    return this.bytes === 0 || this.bytes + more <= limit
  }

  wake(): void {
    for (const waiter of this.waiters) waiter()
  }
}

/** Human units for a limit in a close reason: `16 MiB`, `64 KiB`, `1000 bytes`. */
const sizeOf = (bytes: number): string => {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

/**
 * A stream waited `drainTimeoutMs` for room in its client's (or the server's) budget of queued bytes. It is a
 * `ClientTooSlow` on the wire (1008); its message, the close reason, says which budget, so a client with many streams
 * learns that it is their sum, not this stream alone, that it did not read.
 */
export class QueuedTooMuch extends Data.TaggedError("QueuedTooMuch")<{
  readonly message: string
  readonly queued_bytes: number
}> {}

/** The {@link QueuedTooMuch} of the client's budget (`of: "client"`) or the server's, `limit` bytes. */
export const queuedTooMuch = (of: "client" | "server", limit: number, queued_bytes: number): QueuedTooMuch =>
  new QueuedTooMuch({
    message:
      of === "client"
        ? `client too slow: its streams together queued more than ${sizeOf(limit)}`
        : `client too slow: the server's streams together queued more than ${sizeOf(limit)}`,
    queued_bytes
  })
