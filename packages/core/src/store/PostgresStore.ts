import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import { StoreOpenFailed } from "./StoreErrors.js"
import type { StoreError } from "./StoreLive.js"
import { asStoreError, migrate, refuseForeign, refuseNewerSchema, tableNames } from "./StoreSchema.js"

/** Where the PostgreSQL store lives. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: Redacted.Redacted<string>
  /** The schema holding the tables (the connection's `search_path`); default the server's (`public`). */
  readonly schema?: string | undefined
}

/** The store's address for messages: never its password. */
export const describeLocation = (options: PostgresStoreOptions): string => {
  const text = Redacted.value(options.url)
  if (!URL.canParse(text)) return "PostgreSQL (an unparseable URL)"
  const url = new URL(text)
  url.password = ""
  return `${url.href}${options.schema === undefined ? "" : ` (schema ${options.schema})`}`
}

/**
 * The store on PostgreSQL (`@effect/sql-pg`), checked and migrated exactly as the SQLite one (`StoreSchema.ts`):
 * the same migrations and the same repositories run on it unchanged. An empty schema becomes a store; a schema
 * with other tables and no Gatehouse history, or one migrated by a newer Gatehouse, is refused and left alone.
 */
export const layer = (options: PostgresStoreOptions): Layer.Layer<SqlClient.SqlClient, StoreError> =>
  Layer.effect(
    SqlClient.SqlClient,
    Effect.gen(function* () {
      const location = describeLocation(options)
      const sql = yield* PgClient.make({
        url: options.url,
        ...(options.schema === undefined ? {} : { startupParameters: { search_path: options.schema } })
      }).pipe(Effect.mapError((cause) => new StoreOpenFailed({ filename: location, cause })))
      yield* Effect.gen(function* () {
        if ((yield* tableNames).length > 0) yield* refuseForeign(location, "PostgreSQL schema")
        yield* refuseNewerSchema(location)
        yield* migrate(location)
      }).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.mapError(asStoreError(location)))
      return sql as SqlClient.SqlClient
    })
  ).pipe(Layer.provide(Reactivity.layer))
