import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * `event_marks.request_trimmed_through`: the newest new or expired auth request (`auth_request/created|expired`)
 * dropped beyond its share of the history (`authRequestTrafficShare`), as `failed_trimmed_through` is for failed
 * sign-ins. Unknown until the first such trim: nothing was dropped beyond a share that did not exist.
 */
export const eventMarksRequestsMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    sqlite: () => sql`ALTER TABLE event_marks ADD COLUMN request_trimmed_through TEXT`,
    // Ids compare bytewise, as in the events table.
    orElse: () => sql`ALTER TABLE event_marks ADD COLUMN request_trimmed_through TEXT COLLATE "C"`
  })
})
