import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * The event history. On SQLite the table is clustered on the UUIDv7 id (WITHOUT ROWID), i.e. in time order, which
 * is every read's order, and `data` must be JSON; (category, id) serves `?category=` reads and their `since` bound.
 * Written so SQLite databases created before the store moved to effect/sql already match it.
 */
export const eventsMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    sqlite: () => sql`
      CREATE TABLE IF NOT EXISTS events (
        id        TEXT PRIMARY KEY NOT NULL,
        timestamp TEXT NOT NULL,
        level     TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
        category  TEXT NOT NULL,
        action    TEXT NOT NULL,
        data      TEXT NOT NULL CHECK (json_valid(data))
      ) WITHOUT ROWID`,
    // PostgreSQL: ids compare bytewise (COLLATE "C"), as in SQLite, so UUIDv7 order is time order; `data` must be JSON.
    orElse: () => sql`
      CREATE TABLE IF NOT EXISTS events (
        id        TEXT COLLATE "C" PRIMARY KEY NOT NULL,
        timestamp TEXT NOT NULL,
        level     TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
        category  TEXT NOT NULL,
        action    TEXT NOT NULL,
        data      TEXT NOT NULL CHECK (data::jsonb IS NOT NULL)
      )`
  })
  yield* sql`CREATE INDEX IF NOT EXISTS events_category_id ON events (category, id)`
})
