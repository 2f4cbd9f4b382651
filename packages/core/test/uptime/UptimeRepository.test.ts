import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Redacted } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { requireEnv } from "../../../../test/support/e2e.js"
import { testEvent } from "../../../../test/support/TestEvents.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { migrations, migrationsTable } from "../../src/store/Migrations.js"
import * as PostgresStore from "../../src/store/PostgresStore.js"
import * as SqliteClient from "../../src/store/SqliteClient.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { type Bucket, emptyCounts } from "../../src/uptime/UptimeBuckets.js"
import { UptimeRepository } from "../../src/uptime/UptimeRepository.js"
import { freshPostgresSchema } from "../store/FreshPostgresSchema.js"
import { tempDir } from "../store/TempDir.js"

// The repository is written once, in SQL both databases accept: the same scenario runs on SQLite and, when
// GATEHOUSE_TEST_PG_URL names one (.ci/run starts it; under GATEHOUSE_E2E=1 its absence fails), on PostgreSQL.
const pg = requireEnv("GATEHOUSE_TEST_PG_URL")

const bucket = (alias: string, period: Bucket["period"], start: number, counts: Partial<Bucket> = {}): Bucket => ({
  ...emptyCounts(),
  alias,
  period,
  start,
  ...counts
})

const scenario = Effect.gen(function* () {
  const repository = yield* UptimeRepository
  yield* repository.add([
    bucket("web", "5m", 3000, { healthy: 2, latency_sum: 1.5, latency_count: 2 }),
    bucket("web", "5m", 6000, { unhealthy: 1 }),
    bucket("web", "1h", 0, { healthy: 2, unhealthy: 1, latency_sum: 1.5, latency_count: 2 }),
    bucket("api", "5m", 3000, { napping: 3 }),
    bucket("db", "5m", 3000, { error: 1 })
  ])
  // A second flush of the same bucket adds to it (a flush, or a restart, in the middle of a bucket).
  yield* repository.add([
    bucket("web", "5m", 6000, { healthy: 1, error: 1, starting: 1, unknown: 1, latency_sum: 0.25, latency_count: 1 })
  ])
  yield* repository.add([])
  const all = yield* repository.read("5m", ["web", "api", "nope"], 0, 1e13)
  const windowed = yield* repository.read("5m", ["web"], 4000, 6000)
  const hour = yield* repository.read("1h", ["web", "api"], 0, 1e13)
  const none = yield* repository.read("5m", [], 0, 1e13)
  yield* repository.deleteBefore("5m", 6000)
  const afterRetention = yield* repository.read("5m", ["web", "api", "db"], 0, 1e13)
  return { all, windowed, hour, none, afterRetention }
})

const expected = {
  all: [
    bucket("api", "5m", 3000, { napping: 3 }),
    bucket("web", "5m", 3000, { healthy: 2, latency_sum: 1.5, latency_count: 2 }),
    bucket("web", "5m", 6000, {
      healthy: 1,
      unhealthy: 1,
      error: 1,
      starting: 1,
      unknown: 1,
      latency_sum: 0.25,
      latency_count: 1
    })
  ],
  windowed: [
    bucket("web", "5m", 6000, {
      healthy: 1,
      unhealthy: 1,
      error: 1,
      starting: 1,
      unknown: 1,
      latency_sum: 0.25,
      latency_count: 1
    })
  ],
  hour: [bucket("web", "1h", 0, { healthy: 2, unhealthy: 1, latency_sum: 1.5, latency_count: 2 })],
  none: [],
  // Only 5m buckets before 6 s went; the hour's bucket at 0 is another period's.
  afterRetention: [
    bucket("web", "5m", 6000, {
      healthy: 1,
      unhealthy: 1,
      error: 1,
      starting: 1,
      unknown: 1,
      latency_sum: 0.25,
      latency_count: 1
    })
  ]
}

// A flush of a large route table: more rows than one statement takes (500), so full statements and a shorter last one,
// written twice (each row then holds the sum), then a write of another length. Every row distinct in every column.
const manyRows = (count: number, offset: number) =>
  Array.from({ length: count }, (_, i) =>
    bucket(`route-${String(i).padStart(4, "0")}`, "1h", 3_600_000 * (offset + 1), {
      healthy: i + 1,
      unhealthy: i % 7,
      error: i % 5,
      napping: i % 3,
      starting: i % 2,
      unknown: offset,
      latency_sum: i / 8,
      latency_count: i
    })
  )

const largeFlushes = Effect.gen(function* () {
  const repository = yield* UptimeRepository
  const first = manyRows(1_234, 0)
  yield* repository.add(first)
  yield* repository.add(first)
  const second = manyRows(501, 1)
  yield* repository.add(second)
  const aliases = first.map((b) => b.alias)
  return {
    first: yield* repository.read("1h", aliases, 0, 3_600_000),
    second: yield* repository.read("1h", aliases, 3_600_001, 1e13)
  }
})

const largeExpected = {
  first: manyRows(1_234, 0).map((b) => ({
    ...b,
    healthy: 2 * b.healthy,
    unhealthy: 2 * b.unhealthy,
    error: 2 * b.error,
    napping: 2 * b.napping,
    starting: 2 * b.starting,
    unknown: 2 * b.unknown,
    latency_sum: 2 * b.latency_sum,
    latency_count: 2 * b.latency_count
  })),
  second: manyRows(501, 1)
}

const runOn = <A, E>(store: Layer.Layer<SqlClient.SqlClient, E>, program: Effect.Effect<A, never, UptimeRepository>) =>
  program.pipe(Effect.provide(UptimeRepository.layer.pipe(Layer.provide(store))))

describe("UptimeRepository", () => {
  it.effect("adds counts to buckets, reads a window of some aliases, deletes by period (SQLite)", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* runOn(StoreLive.layerMemory, scenario), expected)
    })
  )

  it.effect("a flush of more rows than one statement takes: every row written, in the right columns (SQLite)", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* runOn(StoreLive.layerMemory, largeFlushes), largeExpected)
    })
  )

  it.effect("a store from before uptime is migrated, its data kept, never reset", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      // A build without uptime had the migrations before it (effect/sql's Migrator runs only ids above the newest).
      const before = Object.fromEntries(Object.entries(migrations).filter(([id]) => Number.parseInt(id, 10) < 5))
      const event = {
        ...testEvent("kept"),
        id: "0190f5c4-0000-7000-8000-000000000001",
        timestamp: "2026-01-01T00:00:00.000Z"
      } as Event
      // What a build without uptime left behind: every other migration and an event, written as that build wrote
      // it (today's repository also keeps marks in a table of a later migration).
      yield* Effect.gen(function* () {
        yield* Migrator.make({})({ loader: Migrator.fromRecord(before), table: migrationsTable })
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO events ${sql.insert({ ...event, data: JSON.stringify(event.data) })}`
      }).pipe(Effect.provide(SqliteClient.layer({ filename })), Effect.orDie)
      const store = StoreLive.layer({ filename })
      const after = yield* Effect.gen(function* () {
        yield* (yield* UptimeRepository).add([bucket("web", "1d", 0, { healthy: 1 })])
        const sql = yield* SqlClient.SqlClient
        return {
          events: (yield* (yield* EventRepository).list({})).map((e) => e.id),
          migrations: (yield* sql<{ migration_id: number }>`SELECT migration_id FROM effect_sql_migrations
            ORDER BY migration_id`.pipe(Effect.orDie)).map((row) => row.migration_id),
          buckets: yield* (yield* UptimeRepository).read("1d", ["web"], 0, 1)
        }
      }).pipe(
        Effect.provide(Layer.mergeAll(EventRepository.layer, UptimeRepository.layer).pipe(Layer.provideMerge(store)))
      )
      assert.deepStrictEqual(after, {
        events: [event.id],
        migrations: Object.keys(migrations).map((id) => Number.parseInt(id, 10)),
        buckets: [bucket("web", "1d", 0, { healthy: 1 })]
      })
    })
  )

  describe.skipIf(pg.skip)("on PostgreSQL", () => {
    // On the live clock: @effect/sql-pg's pool does not make progress under TestClock.
    it.live("answers exactly as on SQLite", () =>
      Effect.gen(function* () {
        const url = Redacted.make(pg.skip ? "" : pg.value)
        const { schema } = yield* freshPostgresSchema(pg.skip ? "" : pg.value)
        assert.deepStrictEqual(yield* runOn(PostgresStore.layer({ url, schema }), scenario), expected)
      }).pipe(Effect.scoped)
    )

    it.live("a flush of more rows than one statement takes, as on SQLite", () =>
      Effect.gen(function* () {
        const url = Redacted.make(pg.skip ? "" : pg.value)
        const { schema } = yield* freshPostgresSchema(pg.skip ? "" : pg.value)
        assert.deepStrictEqual(yield* runOn(PostgresStore.layer({ url, schema }), largeFlushes), largeExpected)
      }).pipe(Effect.scoped)
    )
  })
})
