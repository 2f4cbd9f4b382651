import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * What a session was admitted on, so that each use judges it again under the configuration the server runs with
 * then (`SessionsLive`, `LoginLive.currentSessionRoles`):
 * - `password_fingerprint`: a keyed fingerprint of the password hash a password session was signed in with (a
 *   rotated hash ends it). Sessions stored before are left without one and take their user's hash at their next use,
 *   rather than every user being signed out by the upgrade.
 * - `oidc_claims`: the claims an OpenID Connect session was admitted on (JSON). Sessions stored before have none,
 *   and some were admitted and named under older rules (by `preferred_username`, which users may choose): they are
 *   revoked here, and their holders sign in again under the current rules.
 */
export const sessionAdmissionMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = yield* Clock.currentTimeMillis
  yield* sql`ALTER TABLE sessions ADD COLUMN password_fingerprint TEXT`
  yield* sql`ALTER TABLE sessions ADD COLUMN oidc_claims TEXT`
  yield* sql`UPDATE sessions SET revoked_at = ${now} WHERE method = 'oidc' AND revoked_at IS NULL`
})
