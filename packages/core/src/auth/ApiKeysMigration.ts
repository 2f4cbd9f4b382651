import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * API keys, stored as the SHA-256 of the whole key (a key has 256 random bits: a fast hash leaves nothing to
 * brute-force) next to its public prefix, which finds it. A name and a prefix are unique among keys that are not
 * revoked. Times are RFC 3339 text, the same in SQLite and PostgreSQL.
 */
export const apiKeysMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE api_keys (
      id           TEXT PRIMARY KEY NOT NULL,
      name         TEXT NOT NULL,
      prefix       TEXT NOT NULL,
      sha256       TEXT NOT NULL,
      roles        TEXT NOT NULL,
      created_at   TEXT NOT NULL,
      expires_at   TEXT,
      last_used_at TEXT,
      revoked_at   TEXT
    )`
  yield* sql`CREATE UNIQUE INDEX api_keys_prefix ON api_keys (prefix)`
  yield* sql`CREATE UNIQUE INDEX api_keys_active_name ON api_keys (name) WHERE revoked_at IS NULL`
})
