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
