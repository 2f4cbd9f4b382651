import * as path from "node:path"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { Reactivity } from "effect/reactivity"
import { Migrator, type SqlClient } from "effect/sql"
import { requireEnv } from "../../../../test/support/e2e.js"
import { migrations, migrationsTable } from "../../src/store/Migrations.js"
import * as PostgresStore from "../../src/store/PostgresStore.js"
import * as SqliteClient from "../../src/store/SqliteClient.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { freshPostgresSchema } from "./FreshPostgresSchema.js"
import { tempDir } from "./TempDir.js"

const pg = requireEnv("GATEHOUSE_TEST_PG_URL")

/** What a build before migration `id` left: its migrations run, then `seed` written as that build wrote its rows. */
const leftBefore = <E>(id: number, seed: Effect.Effect<void, E, SqlClient.SqlClient>) =>
  Effect.andThen(
    Migrator.make({})({
      loader: Migrator.fromRecord(
        Object.fromEntries(Object.entries(migrations).filter(([key]) => Number.parseInt(key, 10) < id))
      ),
      table: migrationsTable
    }),
    seed
  )

/** A store of one kind as an older build left it, for upgrade tests on both databases. */
export interface StoreBeforeUnderTest {
  readonly name: string
  readonly skip: boolean
  /**
   * A fresh store migrated up to migration `id` (not included) and seeded by `seed`; the current store on it (which
   * migrates it when built), to build as often as a test restarts the server.
   */
  readonly before: <E>(
    id: number,
    seed: Effect.Effect<void, E, SqlClient.SqlClient>
  ) => Effect.Effect<Layer.Layer<SqlClient.SqlClient, unknown>, unknown, Scope.Scope>
}

/** SQLite in a file and, with GATEHOUSE_TEST_PG_URL (skipped without it, except under GATEHOUSE_E2E=1), PostgreSQL. */
export const storesBefore: ReadonlyArray<StoreBeforeUnderTest> = [
  {
    name: "SQLite",
    skip: false,
    before: (id, seed) =>
      Effect.gen(function* () {
        const filename = path.join(yield* tempDir, "gatehouse.db")
        yield* leftBefore(id, seed).pipe(Effect.provide(SqliteClient.layer({ filename })))
        return StoreLive.layer({ filename })
      })
  },
  {
    name: "PostgreSQL",
    skip: pg.skip,
    before: (id, seed) =>
      Effect.gen(function* () {
        const url = Redacted.make(pg.skip ? "" : pg.value)
        const { schema } = yield* freshPostgresSchema(pg.skip ? "" : pg.value)
        const old = PgClient.layer({
          url,
          startupParameters: { search_path: PostgresStore.searchPathOf(schema) }
        }).pipe(Layer.provide(Reactivity.layer))
        yield* leftBefore(id, seed).pipe(Effect.provide(old))
        return PostgresStore.layer({ url, schema })
      })
  }
]
