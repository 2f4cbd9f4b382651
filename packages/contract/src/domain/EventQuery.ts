/**
 * Which events to read: after the event `since` (exclusive), at most `limit` of them (without `since` the newest;
 * with it the oldest after it, so the next read continues from the last one), of one `category`.
 */
export interface EventQuery {
  readonly since?: string | undefined
  readonly limit?: number | undefined
  readonly category?: string | undefined
}
