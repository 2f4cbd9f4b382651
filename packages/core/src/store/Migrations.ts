import type { Migration } from "./Migrator.js"

/**
 * The SQLite schema, oldest first. To add a table (e.g. auth requests), append a migration with the next
 * version; never edit or reorder one that has shipped, since databases in the field already recorded it.
 */
export const migrations: ReadonlyArray<Migration> = [
  {
    version: 1,
    name: "events",
    // WITHOUT ROWID: the table is clustered on the UUIDv7 id, i.e. in time order, which is every read's order.
    // (category, id) serves `?category=` reads and their `since` bound from one index.
    up: `
      CREATE TABLE events (
        id        TEXT PRIMARY KEY NOT NULL,
        timestamp TEXT NOT NULL,
        level     TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
        category  TEXT NOT NULL,
        action    TEXT NOT NULL,
        data      TEXT NOT NULL CHECK (json_valid(data))
      ) WITHOUT ROWID;
      CREATE INDEX events_category_id ON events (category, id);
    `
  }
]
