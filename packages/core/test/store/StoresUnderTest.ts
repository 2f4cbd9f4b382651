import { Effect, type Layer, Redacted, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { requireEnv } from "../../../../test/support/e2e.js"
import { StoreLive } from "../../src/index.js"
import * as PostgresStore from "../../src/store/PostgresStore.js"
import { freshPostgresSchema } from "./FreshPostgresSchema.js"

const pg = requireEnv("GATEHOUSE_TEST_PG_URL")

/** A store a repository test runs on: its name, whether it is skipped, and a fresh one of it. */
export interface StoreUnderTest {
  readonly name: string
  readonly skip: boolean
  readonly open: Effect.Effect<Layer.Layer<SqlClient.SqlClient, unknown>, never, Scope.Scope>
}

/**
 * SQLite in memory and, with GATEHOUSE_TEST_PG_URL (skipped without it, except under GATEHOUSE_E2E=1), PostgreSQL in
 * a fresh schema: the repository's one SQL must give the same answers on both.
 */
export const storesUnderTest: ReadonlyArray<StoreUnderTest> = [
  { name: "SQLite", skip: false, open: Effect.succeed(StoreLive.layerMemory) },
  {
    name: "PostgreSQL",
    skip: pg.skip,
    open: Effect.map(freshPostgresSchema(pg.skip ? "" : pg.value), ({ schema }) =>
      PostgresStore.layer({ url: Redacted.make(pg.skip ? "" : pg.value), schema })
    )
  }
]
