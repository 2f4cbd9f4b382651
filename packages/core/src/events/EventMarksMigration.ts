import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * What the event history remembers of the events it no longer keeps, one row (`EventRepository.extent`): kept
 * events alone cannot tell a `since` the cap dropped from one that never was an event here, nor a resume that
 * failed sign-ins dropped beyond their share left a gap in.
 * - `first_id`: the oldest id the history ever held; an older id was never one of its events. Set by the first
 *   trim (until then the oldest kept is the first); here from the oldest kept of a store that predates this
 *   table, whose ids trimmed before it read as never stored (404 rather than 410: the client does the same).
 * - `trimmed_through`: the newest id the cap dropped (with `events.history: 0`, the newest event, never kept).
 * - `failed_trimmed_through`: the newest failed sign-in dropped beyond its share. Left unknown for a store that
 *   predates this table, until its next such trim: a guess (its oldest kept failed sign-in) would make every stored
 *   `since` older than that read as a gap, though none may ever have been dropped.
 */
export const eventMarksMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    sqlite: () => sql`
      CREATE TABLE event_marks (
        id                     INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
        first_id               TEXT,
        trimmed_through        TEXT,
        failed_trimmed_through TEXT
      )`,
    // Ids compare bytewise, as in the events table.
    orElse: () => sql`
      CREATE TABLE event_marks (
        id                     INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
        first_id               TEXT COLLATE "C",
        trimmed_through        TEXT COLLATE "C",
        failed_trimmed_through TEXT COLLATE "C"
      )`
  })
  yield* sql`INSERT INTO event_marks (id, first_id) VALUES (1, (SELECT MIN(id) FROM events))`
})
