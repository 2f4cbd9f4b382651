import * as Effect from "effect/Effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlError from "effect/sql/SqlError"
import { latestMigrationId, migrations, migrationsTable } from "./Migrations.js"
import { StoreNotGatehouse, StoreOpenFailed, StoreSchemaTooNew } from "./StoreErrors.js"

// What every store does before its repositories run, on SQLite and PostgreSQL alike: refuse a schema newer than
// this build or a database that is not ours, adopt a foundation-era history, migrate. `location` names the store
// in messages (a file, or a PostgreSQL address without its password).

/** The tables of the database (on PostgreSQL: of the connection's schema). */
export const tableNames: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(
  function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.onDialectOrElse({
      sqlite: () => sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`,
      orElse: () =>
        sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
          WHERE table_schema = current_schema()`
    })
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
export const refuseNewerSchema = (filename: string) =>
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
export const refuseForeign = (filename: string, kind = "SQLite database", remedy?: string) =>
  Effect.gen(function* () {
    const tables = yield* tableNames
    if (tables.includes(migrationsTable) || tables.includes("schema_migrations")) return
    const listed = `${tables.slice(0, 5).join(", ")}${tables.length > 5 ? ", ..." : ""}`
    return yield* new StoreNotGatehouse({
      filename,
      problem: tables.length === 0 ? `is an empty ${kind}` : `is a ${kind} with other tables (${listed})`,
      remedy
    })
  })

/** Brings a database to the newest schema through effect/sql's Migrator. */
export const migrate = (filename: string) =>
  Effect.gen(function* () {
    yield* refuseNewerSchema(filename)
    yield* adoptLegacyMigrations
    yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable })
  })

/** Whether SQLite said the file is not a database (its header is not SQLite's): somewhere in the error's causes. */
const isNotADatabase = (error: unknown): boolean => {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++)
    if ("code" in current && current.code === "SQLITE_NOTADB") return true
  return false
}

/**
 * Startup errors as the operator should read them: the store's own errors as they are, a file that is not a SQLite
 * database as one that is not a store (so `gatehouse store init --force` can move it aside), the rest as open
 * failures.
 */
export const asStoreError =
  (filename: string) =>
  (
    error: SqlError.SqlError | Migrator.MigrationError | StoreOpenFailed | StoreSchemaTooNew | StoreNotGatehouse
  ): StoreOpenFailed | StoreSchemaTooNew | StoreNotGatehouse =>
    error instanceof StoreOpenFailed || error instanceof StoreSchemaTooNew || error instanceof StoreNotGatehouse
      ? error
      : isNotADatabase(error)
        ? new StoreNotGatehouse({ filename, problem: "is not a SQLite database" })
        : new StoreOpenFailed({ filename, cause: error })
