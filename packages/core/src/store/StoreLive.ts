import * as fs from "node:fs/promises"
import { Effect, Layer, Option } from "effect"
import { Reactivity } from "effect/reactivity"
import { Migrator, SqlClient, type SqlError } from "effect/sql"
import { latestMigrationId, migrations, migrationsTable } from "./Migrations.js"
import * as SqliteClient from "./SqliteClient.js"
import { StoreNotGatehouse, StoreOpenFailed, StoreSchemaTooNew } from "./StoreErrors.js"

/** Why a store could not be opened. */
export type StoreError = StoreOpenFailed | StoreSchemaTooNew | StoreNotGatehouse

/** Where the store is. */
export interface StoreOptions {
  /** The SQLite file, e.g. `<data dir>/gatehouse.db`. */
  readonly filename: string
  readonly busyTimeoutMs?: number | undefined
}

/** The tables of the database. */
const tableNames: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
    return rows.map((row) => row.name)
  }
)

/** The newest migration id a table records, 0 when the table is not there. */
const newestIn = (table: string, column: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    if (!(yield* tableNames).includes(table)) return 0
    const rows = yield* sql<{ latest: number | null }>`SELECT max(${sql(column)}) AS latest FROM ${sql(table)}`
    return Number(rows[0]?.latest ?? 0)
  })

// A schema newer than this build may mean tables and rules this code cannot know about: refused before anything
// in the file is touched (the legacy table of foundation builds counts too).
const refuseNewerSchema = (filename: string) =>
  Effect.gen(function* () {
    const found = Math.max(
      yield* newestIn(migrationsTable, "migration_id"),
      yield* newestIn("schema_migrations", "version")
    )
    if (found > latestMigrationId) {
      return yield* new StoreSchemaTooNew({ filename, found, supported: latestMigrationId })
    }
  })

// Foundation builds kept their own table `schema_migrations(version, name, applied_at)`; its versions are the ids
// of the same migrations here. Adopted once, in a transaction: the history in the file is kept as it is.
const adoptLegacyMigrations = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* tableNames
  if (!tables.includes("schema_migrations") || tables.includes(migrationsTable)) return
  yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`CREATE TABLE ${sql(migrationsTable)} (
        migration_id integer PRIMARY KEY NOT NULL,
        created_at datetime NOT NULL DEFAULT current_timestamp,
        name VARCHAR(255) NOT NULL
      )`
      yield* sql`INSERT INTO ${sql(migrationsTable)} (migration_id, name, created_at)
        SELECT version, name, applied_at FROM schema_migrations`
      yield* sql`DROP TABLE schema_migrations`
    })
  )
})

// A file that exists must be a Gatehouse store (or a foundation-era one): never start over on another file.
const refuseForeign = (filename: string) =>
  Effect.gen(function* () {
    const tables = yield* tableNames
    if (tables.includes(migrationsTable) || tables.includes("schema_migrations")) return
    const listed = `${tables.slice(0, 5).join(", ")}${tables.length > 5 ? ", ..." : ""}`
    return yield* new StoreNotGatehouse({
      filename,
      problem:
        tables.length === 0 ? "is an empty SQLite database" : `is a SQLite database with other tables (${listed})`
    })
  })

/** Brings a database to the newest schema through effect/sql's Migrator. */
const migrate = (filename: string) =>
  Effect.gen(function* () {
    yield* refuseNewerSchema(filename)
    yield* adoptLegacyMigrations
    yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable })
  })

/** Startup errors as the operator should read them: the store's own errors as they are, the rest as open failures. */
const asStoreError =
  (filename: string) =>
  (error: SqlError.SqlError | Migrator.MigrationError | StoreSchemaTooNew | StoreNotGatehouse): StoreError =>
    error instanceof StoreSchemaTooNew || error instanceof StoreNotGatehouse
      ? error
      : new StoreOpenFailed({ filename, cause: error })

/** The client on a file, with its Reactivity, errors as startup errors. */
const clientOn = (filename: string, busyTimeoutMs: number | undefined, readonly = false) =>
  Layer.effect(
    SqlClient.SqlClient,
    SqliteClient.make({ filename, busyTimeoutMs, readonly }).pipe(Effect.mapError(asStoreError(filename)))
  ).pipe(Layer.provide(Reactivity.layer))

/** Runs `check` on a read-only connection, so a file that turns out not to be ours is left exactly as it was. */
const inspectReadOnly = <E>(filename: string, check: Effect.Effect<void, E, SqlClient.SqlClient>) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(clientOn(filename, undefined, true)), (context) => Effect.provideContext(check, context))
  )

/** The size of the file at `filename`, if there is one. */
const sizeOf = (filename: string) =>
  Effect.tryPromise({ try: () => fs.stat(filename), catch: (error) => error as NodeJS.ErrnoException }).pipe(
    Effect.map((stat) => Option.some(stat.size)),
    Effect.catch((error) =>
      error.code === "ENOENT" ? Effect.succeedNone : Effect.fail(new StoreOpenFailed({ filename, cause: error }))
    )
  )

/**
 * Creates a new store next to `filename` and moves it into place only once it is complete, so a crash while
 * creating it never leaves a half-made (or 0-byte) file that a later start would rightly refuse.
 */
const create = (filename: string, busyTimeoutMs: number | undefined) =>
  Effect.gen(function* () {
    const fresh = `${filename}.creating`
    yield* Effect.tryPromise({
      try: () => fs.rm(fresh, { force: true }),
      catch: (cause) => new StoreOpenFailed({ filename, cause })
    })
    yield* Effect.scoped(
      Effect.flatMap(Layer.build(clientOn(fresh, busyTimeoutMs)), (context) =>
        migrate(filename).pipe(Effect.provideContext(context), Effect.mapError(asStoreError(filename)))
      )
    )
    yield* Effect.tryPromise({
      try: () => fs.rename(fresh, filename),
      catch: (cause) => new StoreOpenFailed({ filename, cause })
    })
  })

/**
 * The store as an effect/sql `SqlClient`: the SQLite file is created (complete, or not at all), or checked to be a
 * Gatehouse store and migrated to the newest schema (foundation-era files are adopted, their history kept). An empty
 * or foreign file is refused, and so is a schema newer than this build. Repositories take the `SqlClient`.
 */
export const layer = (options: StoreOptions): Layer.Layer<SqlClient.SqlClient, StoreError> => {
  const { filename, busyTimeoutMs } = options
  if (filename === ":memory:" || filename === "") return layerMemory
  return Layer.unwrap(
    Effect.gen(function* () {
      const size = yield* sizeOf(filename)
      if (Option.isNone(size)) yield* create(filename, busyTimeoutMs)
      else if (size.value === 0) return yield* new StoreNotGatehouse({ filename, problem: "is empty (0 bytes)" })
      else {
        yield* inspectReadOnly(
          filename,
          Effect.andThen(refuseForeign(filename), refuseNewerSchema(filename)).pipe(
            Effect.mapError(asStoreError(filename))
          )
        )
      }
      const checked = Layer.effectDiscard(migrate(filename).pipe(Effect.mapError(asStoreError(filename))))
      return checked.pipe(Layer.provideMerge(clientOn(filename, busyTimeoutMs)))
    })
  )
}

/** A fresh in-memory store per build, with the real schema: for tests of other modules. */
export const layerMemory: Layer.Layer<SqlClient.SqlClient> = Layer.effectDiscard(
  Effect.orDie(migrate(":memory:"))
).pipe(Layer.provideMerge(Layer.orDie(clientOn(":memory:", undefined))))
