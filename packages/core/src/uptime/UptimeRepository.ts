import type { UptimePeriod } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { Bucket } from "./UptimeBuckets.js"

// Rows per INSERT: 11 parameters each stays far below both SQLite's (32,766) and PostgreSQL's (65,535) limit, and
// one statement of a few hundred rows costs the driver a fraction of a few hundred one-row statements.
const rowsPerStatement = 500

// Rows are read as arrays in this column order: a page of 1,000 routes reads 100,000 rows, and objects per row
// (then a bucket per object) cost the read about a third more. PostgreSQL returns BIGINT as text; SQLite as a
// number: both become numbers here.
const toBucket = (period: UptimePeriod, row: ReadonlyArray<unknown>): Bucket => ({
  period,
  alias: row[0] as string,
  start: Number(row[1]),
  healthy: Number(row[2]),
  unhealthy: Number(row[3]),
  error: Number(row[4]),
  napping: Number(row[5]),
  starting: Number(row[6]),
  unknown: Number(row[7]),
  latency_sum: Number(row[8]),
  latency_count: Number(row[9])
})

type Row = Record<string, unknown>

const toRow = (b: Bucket): Row => ({
  period: b.period,
  alias: b.alias,
  bucket_start: b.start,
  healthy: b.healthy,
  unhealthy: b.unhealthy,
  error: b.error,
  napping: b.napping,
  starting: b.starting,
  unknown: b.unknown,
  latency_sum: b.latency_sum,
  latency_count: b.latency_count
})

/**
 * The `uptime_buckets` table, in SQL that SQLite and PostgreSQL both accept. Writes add counts to a bucket
 * (creating it), so the same bucket written by two flushes, or before and after a restart, holds the sum.
 * Storage failures are defects: the store is local and its schema is ours.
 */
export class UptimeRepository extends Context.Service<
  UptimeRepository,
  {
    /** Adds each bucket's counts to the stored bucket of the same period, alias and start, in one transaction. */
    readonly add: (buckets: ReadonlyArray<Bucket>) => Effect.Effect<void>
    /** The buckets of `aliases` in `period` that start within `[from, to]`, by alias, then oldest first. */
    readonly read: (
      period: UptimePeriod,
      aliases: ReadonlyArray<string>,
      from: number,
      to: number
    ) => Effect.Effect<ReadonlyArray<Bucket>>
    /** Deletes the buckets of `period` that start before `cutoff` (retention). */
    readonly deleteBefore: (period: UptimePeriod, cutoff: number) => Effect.Effect<void>
  }
>()("@gatehouse-edge/core/UptimeRepository") {
  /** The repository on the store's `SqlClient`. */
  static readonly layer: Layer.Layer<UptimeRepository, never, SqlClient.SqlClient> = Layer.effect(
    UptimeRepository,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient

      // A non-empty chunk: `add` returns early on none.
      const insertChunk = (buckets: ReadonlyArray<Bucket>) =>
        sql`INSERT INTO uptime_buckets ${sql.insert(buckets.map(toRow) as unknown as readonly [Row, ...Array<Row>])}
          ON CONFLICT (period, alias, bucket_start) DO UPDATE SET
            healthy = uptime_buckets.healthy + excluded.healthy,
            unhealthy = uptime_buckets.unhealthy + excluded.unhealthy,
            error = uptime_buckets.error + excluded.error,
            napping = uptime_buckets.napping + excluded.napping,
            starting = uptime_buckets.starting + excluded.starting,
            unknown = uptime_buckets.unknown + excluded.unknown,
            latency_sum = uptime_buckets.latency_sum + excluded.latency_sum,
            latency_count = uptime_buckets.latency_count + excluded.latency_count`

      const add = Effect.fn("UptimeRepository.add")(function* (buckets: ReadonlyArray<Bucket>) {
        if (buckets.length === 0) return
        yield* sql
          .withTransaction(
            Effect.gen(function* () {
              for (let i = 0; i < buckets.length; i += rowsPerStatement) {
                yield* insertChunk(buckets.slice(i, i + rowsPerStatement))
              }
            })
          )
          .pipe(Effect.orDie)
      })

      const read = Effect.fn("UptimeRepository.read")(function* (
        period: UptimePeriod,
        aliases: ReadonlyArray<string>,
        from: number,
        to: number
      ) {
        if (aliases.length === 0) return []
        const rows = yield* sql`SELECT alias, bucket_start, healthy, unhealthy, error, napping, starting, unknown,
            latency_sum, latency_count
          FROM uptime_buckets
          WHERE period = ${period} AND ${sql.in("alias", aliases)} AND bucket_start >= ${from} AND bucket_start <= ${to}
          ORDER BY alias, bucket_start`.values.pipe(Effect.orDie)
        return rows.map((row) => toBucket(period, row))
      })

      const deleteBefore = Effect.fn("UptimeRepository.deleteBefore")(function* (period: UptimePeriod, cutoff: number) {
        yield* sql`DELETE FROM uptime_buckets WHERE period = ${period} AND bucket_start < ${cutoff}`.pipe(Effect.orDie)
      })

      return UptimeRepository.of({ add, read, deleteBefore })
    })
  )
}
