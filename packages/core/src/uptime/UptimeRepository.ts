import type { UptimePeriod } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { Bucket } from "./UptimeBuckets.js"

// Rows per INSERT: 11 parameters each stays far below both SQLite's (32,766) and PostgreSQL's (65,535) limit, and
// one statement of a few hundred rows costs the driver a fraction of a few hundred one-row statements.
const rowsPerStatement = 500

// The columns `add` binds, in this order (see `paramsOf`).
const columns = [
  "period",
  "alias",
  "bucket_start",
  "healthy",
  "unhealthy",
  "error",
  "napping",
  "starting",
  "unknown",
  "latency_sum",
  "latency_count"
] as const

// What a conflict does: the delta is added to the stored bucket.
const addOnConflict = `ON CONFLICT (period, alias, bucket_start) DO UPDATE SET ${columns
  .slice(3)
  .map((column) => `${column} = uptime_buckets.${column} + excluded.${column}`)
  .join(", ")}`

/**
 * The upsert's text for any number of rows up to {@link rowsPerStatement}, rendered once. A flush writes thousands of
 * rows every 5 s; effect/sql's `sql.insert` would build each statement's text again from one object per row, one
 * placeholder at a time: in a server with a thousand routes and no traffic, that was over a third of all it
 * allocated. The text for `n` rows is the first `n` row groups of the longest, so the numbered placeholders
 * PostgreSQL needs work as well as SQLite's `?`.
 */
const makeUpsertText = (placeholder: (n: number) => string) => {
  const head = `INSERT INTO uptime_buckets (${columns.join(", ")}) VALUES `
  let values = ""
  const endOfRow = [0]
  for (let row = 0; row < rowsPerStatement; row++) {
    const group = columns.map((_, column) => placeholder(row * columns.length + column + 1)).join(",")
    values += `${row === 0 ? "" : ","}(${group})`
    endOfRow.push(values.length)
  }
  const full = `${head}${values} ${addOnConflict}`
  return (rows: number) =>
    rows === rowsPerStatement ? full : `${head}${values.slice(0, endOfRow[rows])} ${addOnConflict}`
}

// A chunk's parameters: each bucket's values in the order of `columns`, in an array allocated once at its size.
const paramsOf = (buckets: ReadonlyArray<Bucket>, from: number, to: number): Array<unknown> => {
  const params = new Array<unknown>((to - from) * columns.length)
  let at = 0
  for (let i = from; i < to; i++) {
    const b = buckets[i]!
    params[at++] = b.period
    params[at++] = b.alias
    params[at++] = b.start
    params[at++] = b.healthy
    params[at++] = b.unhealthy
    params[at++] = b.error
    params[at++] = b.napping
    params[at++] = b.starting
    params[at++] = b.unknown
    params[at++] = b.latency_sum
    params[at++] = b.latency_count
  }
  return params
}

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

      const upsertText = makeUpsertText(
        sql.onDialectOrElse({ pg: () => (n: number) => `$${n}`, orElse: () => () => "?" })
      )

      // A non-empty chunk: `add` returns early on none.
      const upsertChunk = (buckets: ReadonlyArray<Bucket>, from: number, to: number) =>
        sql.unsafe(upsertText(to - from), paramsOf(buckets, from, to))

      const add = Effect.fn("UptimeRepository.add")(function* (buckets: ReadonlyArray<Bucket>) {
        if (buckets.length === 0) return
        yield* sql
          .withTransaction(
            Effect.gen(function* () {
              for (let i = 0; i < buckets.length; i += rowsPerStatement) {
                yield* upsertChunk(buckets, i, Math.min(i + rowsPerStatement, buckets.length))
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
