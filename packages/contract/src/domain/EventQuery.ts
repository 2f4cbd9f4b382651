/** Which events to read: after the event `since` (exclusive), at most `limit` (newest kept), of one `category`. */
export interface EventQuery {
  readonly since?: string | undefined
  readonly limit?: number | undefined
  readonly category?: string | undefined
}
