import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Indexes for the pending cap, which holds per kind (`AuthRequestRepository.countPending` and `expireOldest`, on
 * every create of a busy server and on every create of a flood past the cap). Partial, on the pending requests
 * only (a few thousand at most, while the history may hold hundreds of thousands), in syntax SQLite and
 * PostgreSQL share; a query uses them when it says `state = 'pending'` literally.
 * - `(kind, created_at, auth_id, expires_at)`: the oldest unexpired pending requests of one kind, read in order
 *   from the start (and from the index alone) instead of every pending request read and sorted.
 * - `(kind, expires_at)`: the count of one kind's unexpired pending requests, from the index alone.
 */
export const authRequestsPendingMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX auth_requests_pending_order ON auth_requests (kind, created_at, auth_id, expires_at)
    WHERE state = 'pending'`
  yield* sql`CREATE INDEX auth_requests_pending_expiry ON auth_requests (kind, expires_at) WHERE state = 'pending'`
})
