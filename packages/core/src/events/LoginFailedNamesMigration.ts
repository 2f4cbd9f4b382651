import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Blanks the user name of every stored refused password sign-in (`auth/login_failed` with `method: "session"`).
 * Builds before the name was kept only for configured users recorded whatever was typed, and a password typed into
 * the name field is then readable by anyone with `events:read`. Which names were users' is not known here (the
 * config is not the store's), so none is kept: the rest of each event (address, reason, time) stays.
 */
export const loginFailedNamesMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    sqlite: () => sql`UPDATE events SET data = json_set(data, '$.username', '')
      WHERE category = 'auth' AND action = 'login_failed' AND json_extract(data, '$.method') = 'session'
        AND json_extract(data, '$.username') <> ''`,
    // `data` is JSON text (checked as jsonb): rewritten through jsonb, which keeps its meaning, not its spacing.
    orElse: () => sql`UPDATE events SET data = jsonb_set(data::jsonb, '{username}', '""'::jsonb)::text
      WHERE category = 'auth' AND action = 'login_failed' AND data::jsonb ->> 'method' = 'session'
        AND data::jsonb ->> 'username' <> ''`
  })
})
