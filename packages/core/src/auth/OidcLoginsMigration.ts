import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Indexes for what every OIDC sign-in start does to `oidc_logins` (see `OidcLoginRepository.insert`): delete the
 * expired logins and, past the cap, the oldest. Without them both scan and sort the whole table, up to 10,000 rows,
 * on every start, which anyone may make.
 */
export const oidcLoginsMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX oidc_logins_expires ON oidc_logins (expires_at)`
  yield* sql`CREATE INDEX oidc_logins_created ON oidc_logins (created_at)`
})
