import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * What the cap dropped of each category, so a follower of one category is not told of a gap that other categories'
 * events made (its `since` pushed out by them, none of its own dropped after it):
 * - `event_category_marks`: per category, the newest of its events the cap dropped (`EventRepository` writes it
 *   with each trim);
 * - `event_marks.all_categories_trimmed_through`: what every category counts as dropped through. Before this table
 *   only the newest event the cap dropped was known, of whatever category: from a store that predates it, every
 *   category is marked there. Conservative: an older `since` of any category reads as a gap once, never a gap as
 *   nothing.
 */
export const eventCategoryMarksMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    sqlite: () => sql`
      CREATE TABLE event_category_marks (
        category        TEXT PRIMARY KEY NOT NULL,
        trimmed_through TEXT NOT NULL
      ) WITHOUT ROWID`,
    // Ids compare bytewise, as in the events table.
    orElse: () => sql`
      CREATE TABLE event_category_marks (
        category        TEXT PRIMARY KEY NOT NULL,
        trimmed_through TEXT COLLATE "C" NOT NULL
      )`
  })
  yield* sql.onDialectOrElse({
    sqlite: () => sql`ALTER TABLE event_marks ADD COLUMN all_categories_trimmed_through TEXT`,
    orElse: () => sql`ALTER TABLE event_marks ADD COLUMN all_categories_trimmed_through TEXT COLLATE "C"`
  })
  yield* sql`UPDATE event_marks SET all_categories_trimmed_through = trimmed_through`
})
