import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Users, nodes and auth requests, in SQL that SQLite and PostgreSQL both accept. Times are epoch milliseconds
 * (BIGINT): expiry and retention compare them, and numbers compare the same under every collation. Ids are
 * assigned by the repository inside its transaction, so no dialect's auto-increment is needed. An address is
 * unique, so one is never handed out twice even if two writers raced past the allocator.
 */
export const authRequestsMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE auth_users (
      id           INTEGER PRIMARY KEY NOT NULL,
      name         TEXT NOT NULL,
      display_name TEXT NOT NULL,
      email        TEXT NOT NULL,
      created_at   BIGINT NOT NULL
    )`
  yield* sql`CREATE UNIQUE INDEX auth_users_name ON auth_users (name)`
  yield* sql`
    CREATE TABLE auth_nodes (
      id              INTEGER PRIMARY KEY NOT NULL,
      machine_key     TEXT NOT NULL,
      node_key        TEXT NOT NULL,
      disco_key       TEXT NOT NULL,
      hostname        TEXT NOT NULL,
      given_name      TEXT NOT NULL,
      user_id         INTEGER NOT NULL REFERENCES auth_users (id),
      ipv4            TEXT,
      ipv6            TEXT,
      register_method TEXT NOT NULL,
      tags            TEXT NOT NULL,
      created_at      BIGINT NOT NULL,
      expiry          BIGINT,
      last_seen       BIGINT
    )`
  yield* sql`CREATE UNIQUE INDEX auth_nodes_machine_key ON auth_nodes (machine_key)`
  yield* sql`CREATE UNIQUE INDEX auth_nodes_given_name ON auth_nodes (given_name)`
  yield* sql`CREATE UNIQUE INDEX auth_nodes_ipv4 ON auth_nodes (ipv4)`
  yield* sql`CREATE UNIQUE INDEX auth_nodes_ipv6 ON auth_nodes (ipv6)`
  yield* sql`
    CREATE TABLE auth_requests (
      auth_id     TEXT PRIMARY KEY NOT NULL,
      kind        TEXT NOT NULL,
      state       TEXT NOT NULL,
      created_at  BIGINT NOT NULL,
      expires_at  BIGINT NOT NULL,
      decided_at  BIGINT,
      decided_by  TEXT,
      user_id     INTEGER REFERENCES auth_users (id),
      node_id     INTEGER REFERENCES auth_nodes (id),
      machine_key TEXT,
      node_key    TEXT,
      hostname    TEXT,
      src         TEXT,
      dst         TEXT,
      local_user  TEXT
    )`
  yield* sql`CREATE INDEX auth_requests_state ON auth_requests (state, expires_at)`
  yield* sql`CREATE INDEX auth_requests_created ON auth_requests (created_at)`
})
