import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Indexes for listing auth requests a page at a time (`AuthRequestRepository.listRequests`).
 * - `(created_at, auth_id)`, the list's order with its tie-break: a page after a cursor is a range of it, read
 *   from the cursor on, rather than every newer row read and skipped. It supersedes the index on `created_at`.
 * - `(src, local_user, decided_at)`: the SSH gate asks, at every checked login, for an approval of that source
 *   and user decided within the check period. Without it that is a scan of every approved request (tens of
 *   thousands on a busy gate); with it, the few rows of that user in the period. `dst` is left out so the same
 *   index serves a gate whose one approval covers every destination (`check_scope: source`).
 */
export const authRequestsPagingMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX auth_requests_order ON auth_requests (created_at, auth_id)`
  yield* sql`DROP INDEX auth_requests_created`
  yield* sql`CREATE INDEX auth_requests_ssh_check ON auth_requests (src, local_user, decided_at)`
})
