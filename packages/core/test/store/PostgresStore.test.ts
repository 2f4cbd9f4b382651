import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Option, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { v7 } from "uuid"
import { requireEnv } from "../../../../test/support/e2e.js"
import { testEvent } from "../../../../test/support/TestEvents.js"
import { ApiKeyConflict, ApiKeyRepository, type StoredApiKey } from "../../src/auth/ApiKeyRepository.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { latestMigrationId, migrations, migrationsTable } from "../../src/store/Migrations.js"
import * as PostgresStore from "../../src/store/PostgresStore.js"
import { StoreNotGatehouse, StoreOpenFailed, StoreSchemaTooNew } from "../../src/store/StoreErrors.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { freshPostgresSchema } from "./FreshPostgresSchema.js"

// The repositories are written once, in SQL both databases accept: the same scenario runs on SQLite and on a real
// PostgreSQL and must give the same answers. GATEHOUSE_TEST_PG_URL names a database the tests may create schemas
// in (.ci/run starts one); without it these tests are skipped, except under GATEHOUSE_E2E=1, where that fails.
const pg = requireEnv("GATEHOUSE_TEST_PG_URL")
const url = pg.skip ? "" : pg.value

const freshSchema = freshPostgresSchema(url)

const postgresIn = (schema: string) => PostgresStore.layer({ url: Redacted.make(url), schema })

// Fixed ids and times, so both databases hold the very same events.
const event = (n: number, category: "config" | "health"): Event =>
  ({
    ...testEvent(`e${n}`, category),
    id: v7({ msecs: 1_000 + n, seq: 0 }),
    timestamp: new Date(1_000 + n).toISOString(),
    level: n % 2 === 0 ? "info" : "warn"
  }) as Event

const key = (name: string, prefix: string, created: string): StoredApiKey => ({
  id: `id-${name}`,
  name,
  prefix,
  sha256: "ab".repeat(32),
  roles: ["admin"],
  scopes: ["admin"],
  created_at: created,
  expires_at: null,
  last_used_at: null,
  revoked_at: null
})

const written = Array.from({ length: 6 }, (_, i) => event(i + 1, i % 2 === 0 ? "config" : "health"))

// Every repository operation, with the answers a caller sees.
const scenario = Effect.gen(function* () {
  const events = yield* EventRepository
  const keys = yield* ApiKeyRepository
  for (const event of written) yield* events.append(event, 5)
  const all = yield* events.list({})
  const newestTwo = yield* events.list({ limit: 2 })
  const since = yield* events.list({ since: all[1]!.id })
  const config = yield* events.list({ category: "config" })
  // With since, the oldest after it; a checked page; where the history starts.
  const sinceTwo = yield* events.list({ since: all[0]!.id, limit: 2 })
  const page = yield* events.page(all[0]!.id, "health", 2)
  const trimmedPage = yield* events.page(written[0]!.id, undefined, 2)
  const extent = yield* events.extent
  const categoryMarks = [yield* events.categoryTrimmedThrough("config"), yield* events.categoryTrimmedThrough("health")]

  yield* keys.insert(key("ci", "aaaa1111", "2026-01-01T00:00:00.000Z"))
  yield* keys.insert(key("admin", "bbbb2222", "2026-01-02T00:00:00.000Z"))
  const duplicate = yield* Effect.flip(keys.insert({ ...key("ci", "cccc3333", "2026-01-03T00:00:00.000Z"), id: "x" }))
  yield* keys.touch("id-ci", "2026-02-01T00:00:00.000Z")
  const revoked = Option.map(yield* keys.revoke("ci", "2026-03-01T00:00:00.000Z"), (key) => key.revoked_at)
  const revokedAgain = yield* keys.revoke("ci", "2026-03-02T00:00:00.000Z")
  yield* keys.insert({ ...key("ci", "dddd4444", "2026-04-01T00:00:00.000Z"), id: "id-ci-2" })
  return {
    all,
    newestTwo,
    since,
    config,
    sinceTwo,
    page,
    trimmedPage,
    extent,
    categoryMarks,
    duplicate: duplicate instanceof ApiKeyConflict,
    found: Option.map(yield* keys.findByPrefix("aaaa1111"), (k) => [k.last_used_at, k.revoked_at, k.roles]),
    missing: Option.isNone(yield* keys.findByPrefix("zzzz9999")),
    revoked,
    revokedAgain,
    list: (yield* keys.list).map((k) => `${k.name}:${k.prefix}:${k.revoked_at ?? "-"}`)
  }
})

const runOn = <E>(store: Layer.Layer<SqlClient.SqlClient, E>) =>
  scenario.pipe(
    Effect.provide(Layer.mergeAll(EventRepository.layer, ApiKeyRepository.layer).pipe(Layer.provide(store)))
  )

const openIn = (schema: string): Effect.Effect<SqlClient.SqlClient, unknown, Scope.Scope> =>
  Effect.map(Layer.build(postgresIn(schema)), Context.get(SqlClient.SqlClient))

describe.skipIf(pg.skip)("the store on PostgreSQL", () => {
  it.live("the repositories answer exactly as on SQLite", () =>
    Effect.gen(function* () {
      const { schema } = yield* freshSchema
      const onPostgres = yield* runOn(postgresIn(schema))
      const onSqlite = yield* runOn(StoreLive.layerMemory)
      assert.deepStrictEqual(onPostgres, onSqlite)
      // And those answers are the right ones: the cap kept the newest 5, limit the newest 2, oldest first.
      assert.deepStrictEqual(onPostgres.all, written.slice(1))
      assert.deepStrictEqual(onPostgres.newestTwo, onPostgres.all.slice(-2))
      assert.deepStrictEqual(onPostgres.since, onPostgres.all.slice(2))
      assert.isTrue(onPostgres.config.every((e) => e.category === "config"))
      assert.deepStrictEqual(onPostgres.sinceTwo, onPostgres.all.slice(1, 3))
      assert.deepStrictEqual(onPostgres.page, {
        sinceKept: true,
        events: onPostgres.all.slice(1).filter((e) => e.category === "health")
      })
      assert.deepStrictEqual(onPostgres.trimmedPage, { sinceKept: false, events: onPostgres.all.slice(0, 2) })
      assert.deepStrictEqual(onPostgres.extent, {
        oldest: written[1]!.id,
        newest: written[5]!.id,
        first: written[0]!.id,
        trimmedThrough: written[0]!.id,
        failedTrimmedThrough: undefined,
        requestTrimmedThrough: undefined
      })
      // The cap dropped the first event, a config one: health lost none.
      assert.deepStrictEqual(onPostgres.categoryMarks, [written[0]!.id, undefined])
      assert.isTrue(onPostgres.duplicate)
      assert.deepStrictEqual(onPostgres.revoked, Option.some("2026-03-01T00:00:00.000Z"))
      assert.deepStrictEqual(onPostgres.revokedAgain, Option.none())
      assert.deepStrictEqual(onPostgres.list, [
        "ci:aaaa1111:2026-03-01T00:00:00.000Z",
        "admin:bbbb2222:-",
        "ci:dddd4444:-"
      ])
    }).pipe(Effect.scoped)
  )

  it.live("migrates an empty schema once; reopening keeps the data and runs nothing", () =>
    Effect.gen(function* () {
      const { schema, admin } = yield* freshSchema
      const stored = event(1, "config")
      yield* Effect.scoped(
        Effect.flatMap(
          openIn(schema),
          (sql) => sql`INSERT INTO events ${sql.insert({ ...stored, data: JSON.stringify(stored.data) })}`
        )
      )
      const recorded = admin<{
        migration_id: number
      }>`SELECT migration_id FROM ${admin(schema)}.${admin(migrationsTable)}
        ORDER BY migration_id`
      const first = yield* recorded
      // Every migration once (ids may have gaps: a branch's migration keeps the id it will have once merged).
      assert.strictEqual(first.length, Object.keys(migrations).length)
      const again = yield* Effect.scoped(Effect.flatMap(openIn(schema), (sql) => sql`SELECT id FROM events`))
      assert.deepStrictEqual(again, [{ id: stored.id }])
      assert.deepStrictEqual(yield* recorded, first)
    }).pipe(Effect.scoped)
  )

  it.live("refuses a schema with other tables, or migrated by a newer Gatehouse, and leaves it alone", () =>
    Effect.gen(function* () {
      const foreign = yield* freshSchema
      yield* foreign.admin`CREATE TABLE ${foreign.admin(foreign.schema)}.customers (id integer)`
      const refused = yield* Effect.flip(Effect.scoped(openIn(foreign.schema)))
      assert.instanceOf(refused, StoreNotGatehouse)
      assert.include((refused as StoreNotGatehouse).message, "PostgreSQL schema with other tables (customers)")
      // The remedy is PostgreSQL's, not the SQLite file's (`gatehouse store init --force` moves files only).
      assert.include((refused as StoreNotGatehouse).message, "Point the store at an empty schema")
      assert.notInclude((refused as StoreNotGatehouse).message, "store init")
      const tables = yield* foreign.admin<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = ${foreign.schema}`
      assert.deepStrictEqual(tables, [{ name: "customers" }])

      const newer = yield* freshSchema
      yield* Effect.scoped(openIn(newer.schema))
      yield* newer.admin`INSERT INTO ${newer.admin(newer.schema)}.${newer.admin(migrationsTable)} (migration_id, name)
        VALUES (${latestMigrationId + 1}, 'from_the_future')`
      const tooNew = yield* Effect.flip(Effect.scoped(openIn(newer.schema)))
      assert.instanceOf(tooNew, StoreSchemaTooNew)
    }).pipe(Effect.scoped)
  )

  it.live("takes the schema by its exact name: case and punctuation are kept, never read as a list", () =>
    Effect.gen(function* () {
      const { admin } = yield* freshSchema
      const suffix = Math.random().toString(36).slice(2, 8)
      const mixed = `Tenant_${suffix}`
      const listLike = `t_${suffix},public`
      for (const schema of [mixed, listLike])
        yield* Effect.acquireRelease(admin`CREATE SCHEMA ${admin(schema)}`, () =>
          Effect.orDie(admin`DROP SCHEMA ${admin(schema)} CASCADE`)
        )
      for (const schema of [mixed, listLike]) {
        yield* Effect.scoped(openIn(schema))
        const tables = yield* admin<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = ${schema}`
        assert.include(
          tables.map((t) => t.name),
          migrationsTable,
          `the store's tables are in ${schema}`
        )
      }
    }).pipe(Effect.scoped)
  )

  it.live("a schema that does not exist is refused with its name, and not created", () =>
    Effect.gen(function* () {
      const { admin } = yield* freshSchema
      const missing = `gatehouse_missing_${Math.random().toString(36).slice(2, 8)}`
      const error = yield* Effect.flip(Effect.scoped(openIn(missing)))
      assert.instanceOf(error, StoreOpenFailed)
      assert.include(error.message, `schema ${missing} does not exist: create it first`)
      const found = yield* admin`SELECT 1 FROM pg_namespace WHERE nspname = ${missing}`
      assert.lengthOf(found, 0)
    }).pipe(Effect.scoped)
  )

  it.live("a capitalised name whose lower-cased schema holds a store (as earlier versions made it) is refused", () =>
    Effect.gen(function* () {
      const { schema: folded, admin } = yield* freshSchema
      // Unquoted, as earlier versions passed it: `Gatehouse_Test_...` was `gatehouse_test_...`, and the store there.
      yield* Effect.scoped(openIn(folded))
      const recorded = admin`SELECT migration_id FROM ${admin(folded)}.${admin(migrationsTable)} ORDER BY 1`
      const before = yield* recorded
      const named = folded.replace("gatehouse_test", "Gatehouse_Test")

      const error = yield* Effect.flip(Effect.scoped(openIn(named)))
      assert.instanceOf(error, StoreOpenFailed)
      assert.include(
        error.message,
        `schema ${named} does not exist; earlier versions folded the name to ${folded}, which holds a Gatehouse ` +
          `store: set schema to ${folded}`
      )
      // Neither store is opened: no schema made under the name given, the old one as it was.
      const made = yield* admin`SELECT 1 FROM pg_namespace WHERE nspname = ${named}`
      assert.lengthOf(made, 0)
      assert.deepStrictEqual(yield* recorded, before)

      // A lower-cased schema that is not a store: only the name given is missing (and must be created quoted).
      const empty = yield* freshSchema
      const other = empty.schema.replace("gatehouse_test", "Gatehouse_Test")
      const missing = yield* Effect.flip(Effect.scoped(openIn(other)))
      assert.instanceOf(missing, StoreOpenFailed)
      assert.include(missing.message, `schema ${other} does not exist: create it first (CREATE SCHEMA "${other}")`)
      assert.notInclude(missing.message, "earlier versions")
    }).pipe(Effect.scoped)
  )

  it.live("a role that does not exist is StoreOpenFailed with PostgreSQL's reason", () =>
    Effect.gen(function* () {
      const target = new URL(url)
      target.username = "gatehouse_nobody"
      target.password = "s3cret"
      const error = yield* Effect.flip(
        Effect.scoped(Layer.build(PostgresStore.layer({ url: Redacted.make(target.href) })))
      )
      assert.instanceOf(error, StoreOpenFailed)
      assert.include(error.message, 'role "gatehouse_nobody" does not exist')
      assert.notInclude(error.message, "s3cret")
    })
  )

  it.live("an unreachable server is StoreOpenFailed, and no message shows the password", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.scoped(
          Layer.build(PostgresStore.layer({ url: Redacted.make("postgres://gatehouse:s3cret@127.0.0.1:1/db") }))
        )
      )
      assert.instanceOf(error, StoreOpenFailed)
      assert.include(error.message, "postgres://gatehouse@127.0.0.1:1/db")
      assert.notInclude(error.message, "s3cret")
      // The driver also reads a password from the query.
      const inQuery = yield* Effect.flip(
        Effect.scoped(
          Layer.build(
            PostgresStore.layer({ url: Redacted.make("postgres://gatehouse@127.0.0.1:1/db?password=s3cret") })
          )
        )
      )
      assert.instanceOf(inQuery, StoreOpenFailed)
      assert.include(inQuery.message, "postgres://gatehouse@127.0.0.1:1/db?password=<redacted>")
      assert.notInclude(inQuery.message, "s3cret")
    })
  )
})
