import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * An index of the requests that expired without a verdict, in the order they expired: the sweeper deletes them
 * after a short retention and beyond a count (`AuthRequestUndecided`), oldest first, and reads when the next is due.
 * Partial, so it holds only those few (at most that count, about) whatever the decided history holds; the queries
 * say `state = 'expired'` literally so both dialects use it.
 */
export const authRequestsExpiredMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX auth_requests_expired ON auth_requests (decided_at, auth_id) WHERE state = 'expired'`
})
