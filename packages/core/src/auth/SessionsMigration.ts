import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Sign-in: browser sessions, pending OIDC logins, server secrets, and scopes on API keys, in SQL that SQLite and
 * PostgreSQL both accept. Times are epoch milliseconds (BIGINT), compared in SQL for expiry.
 *
 * - `sessions`: a session is found by the SHA-256 of its token (the cookie holds the token; a copy of the table
 *   lets nobody sign in); `id` is a separate public id, for listing and revoking.
 * - `oidc_logins`: what a login sent to the OpenID provider must come back with (state, nonce, PKCE verifier,
 *   where to return), found by the SHA-256 of its state and deleted when used.
 * - `server_secrets`: random keys the server made itself (the cookie signing key), shared by every replica of a
 *   PostgreSQL store.
 * - `api_keys.scopes`: what a key may do. Every key stored before this migration is the admin key.
 */
export const sessionsMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT '["admin"]'`
  yield* sql`
    CREATE TABLE sessions (
      id           TEXT PRIMARY KEY NOT NULL,
      token_sha256 TEXT NOT NULL,
      subject      TEXT NOT NULL,
      method       TEXT NOT NULL,
      roles        TEXT NOT NULL,
      address      TEXT NOT NULL,
      user_agent   TEXT NOT NULL,
      created_at   BIGINT NOT NULL,
      expires_at   BIGINT NOT NULL,
      renewed_at   BIGINT NOT NULL,
      revoked_at   BIGINT
    )`
  yield* sql`CREATE UNIQUE INDEX sessions_token ON sessions (token_sha256)`
  yield* sql`CREATE INDEX sessions_expires ON sessions (expires_at)`
  yield* sql`
    CREATE TABLE oidc_logins (
      state_sha256  TEXT PRIMARY KEY NOT NULL,
      nonce         TEXT NOT NULL,
      code_verifier TEXT NOT NULL,
      return_to     TEXT NOT NULL,
      created_at    BIGINT NOT NULL,
      expires_at    BIGINT NOT NULL
    )`
  yield* sql`
    CREATE TABLE server_secrets (
      name       TEXT PRIMARY KEY NOT NULL,
      value      TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`
})
