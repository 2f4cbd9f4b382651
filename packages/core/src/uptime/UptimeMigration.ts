import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * The uptime history: one row per route, period and bucket (`period / 100` wide), holding the samples counted per
 * status and the latency sum and count of the healthy ones, so a period never has more than about 100 rows per
 * route whatever the sample rate. Times are epoch milliseconds (BIGINT), as in the auth-request tables. The key
 * leads with the period and the alias, the order every read and every retention sweep walks; on SQLite the table
 * is clustered on it (WITHOUT ROWID), so a route's buckets of one period sit together.
 */
export const uptimeMigration = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.onDialectOrElse({
    sqlite: () => sql`
      CREATE TABLE uptime_buckets (
        period        TEXT NOT NULL,
        alias         TEXT NOT NULL,
        bucket_start  BIGINT NOT NULL,
        healthy       INTEGER NOT NULL,
        unhealthy     INTEGER NOT NULL,
        error         INTEGER NOT NULL,
        napping       INTEGER NOT NULL,
        starting      INTEGER NOT NULL,
        unknown       INTEGER NOT NULL,
        latency_sum   DOUBLE PRECISION NOT NULL,
        latency_count INTEGER NOT NULL,
        PRIMARY KEY (period, alias, bucket_start)
      ) WITHOUT ROWID`,
    orElse: () => sql`
      CREATE TABLE uptime_buckets (
        period        TEXT NOT NULL,
        alias         TEXT NOT NULL,
        bucket_start  BIGINT NOT NULL,
        healthy       INTEGER NOT NULL,
        unhealthy     INTEGER NOT NULL,
        error         INTEGER NOT NULL,
        napping       INTEGER NOT NULL,
        starting      INTEGER NOT NULL,
        unknown       INTEGER NOT NULL,
        latency_sum   DOUBLE PRECISION NOT NULL,
        latency_count INTEGER NOT NULL,
        PRIMARY KEY (period, alias, bucket_start)
      )`
  })
})
