import { PgClient } from "@effect/sql-pg"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import { migrationsTable } from "./Migrations.js"
import { StoreOpenFailed } from "./StoreErrors.js"
import type { StoreError } from "./StoreLive.js"
import { asStoreError, migrate, refuseForeign, refuseNewerSchema, tableNames } from "./StoreSchema.js"

/** Where the PostgreSQL store lives. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: Redacted.Redacted<string>
  /**
   * The schema holding the tables, by its exact name (case and punctuation kept: it becomes the connection's
   * `search_path`, quoted). It must exist (`CREATE SCHEMA "..."`): a missing one is refused rather than created, so a
   * mistyped name never starts a second, empty store (nor one beside the lower-cased schema that versions before the
   * name was quoted used). Default: the server's (`public`).
   */
  readonly schema?: string | undefined
  /**
   * How long one of the server's statements may run before PostgreSQL cancels it (a store error, not a hang).
   * Default {@link defaultStatementTimeout}. Startup's checks and migrations are not bounded by it.
   */
  readonly statementTimeout?: Duration.Input | undefined
}

/**
 * How long a statement waits for a lock another session holds before PostgreSQL gives up with 55P03, which
 * `StoreTrouble` reads as "locked by another process" (503, `Retry-After: 5`): the README's "waits up to 5 s".
 */
export const lockTimeout = Duration.seconds(5)

/**
 * A statement still running after this is stuck (the server's own take milliseconds; a lock wait ends at
 * {@link lockTimeout}): cancelled by PostgreSQL, so it fails its request instead of holding a pooled connection.
 */
export const defaultStatementTimeout = Duration.seconds(30)

// A pooled connection whose database vanished (a partition, a host that went down) is found dead after 10 s of
// silence and 10 unanswered probes a second apart, rather than after the kernel's ~2 hours: a request waiting on its
// answer fails in about 20 s. A database frozen on a live host still acknowledges the probes: that wait is unbounded.
const keepAlive = Duration.seconds(10)

/** A duration as a PostgreSQL setting (`lock_timeout`, `statement_timeout`) reads it: whole milliseconds. */
const settingOf = (duration: Duration.Input): string =>
  `${Math.ceil(Duration.toMillis(Duration.fromInputUnsafe(duration)))}ms`

/** `schema` as one quoted identifier for `search_path`: `Tenant2` stays `Tenant2`, `a,public` is one odd name. */
export const searchPathOf = (schema: string): string => `"${schema.replaceAll('"', '""')}"`

// A PostgreSQL schema is dropped or renamed by the operator (the server never moves one aside as it does a file).
const postgresRemedy =
  "Point the store at an empty schema or one of Gatehouse's (the `schema` option), or give it a database of its own"

// A connection URL carries secrets in its query too: `password` and `sslpassword` are read from it (by
// @effect/sql-pg's URL parser, as by libpq). Any parameter named like a secret is hidden.
const SECRET_PARAMETER = /pass|secret|token|key/i

/** The store's address for messages: never its password, in the user part or in the query. */
export const describeLocation = (options: PostgresStoreOptions): string => {
  const text = Redacted.value(options.url)
  if (!URL.canParse(text)) return "PostgreSQL (an unparseable URL)"
  const url = new URL(text)
  // A password with an unencoded `/`, `?` or `#` ends the host early: its start reads as a port, the rest as a path
  // holding the real `user@host`. Nothing of such a URL is shown.
  if (`${url.pathname}${url.search}${url.hash}`.includes("@")) {
    return "PostgreSQL (a URL with an '@' after its host: percent-encode the password)"
  }
  url.password = ""
  const query = [...url.searchParams]
    .map(
      ([name, value]) =>
        `${encodeURIComponent(name)}=${SECRET_PARAMETER.test(name) ? "<redacted>" : encodeURIComponent(value)}`
    )
    .join("&")
  url.search = ""
  url.hash = ""
  const schema = options.schema === undefined ? "" : ` (schema ${options.schema})`
  return `${url.href}${query === "" ? "" : `?${query}`}${schema}`
}

/** How PostgreSQL reads an unquoted identifier: ASCII letters lower-cased (`UpgradeTenantA` is `upgradetenanta`). */
const foldedSchemaName = (schema: string): string => schema.replace(/[A-Z]/g, (letter) => letter.toLowerCase())

// Before the name was quoted, `schema: UpgradeTenantA` stored the tables in `upgradetenanta`. Creating the schema
// as named would open a new, empty store beside that one: when the folded name holds a Gatehouse store, say so
// (neither is opened: which one is meant is the operator's call).
const missingSchemaReason = (schema: string) =>
  Effect.gen(function* () {
    const missing = `schema ${schema} does not exist`
    // Quoted, as it is used: unquoted, `CREATE SCHEMA UpgradeTenantA` would make `upgradetenanta`.
    const create = `${missing}: create it first (CREATE SCHEMA ${searchPathOf(schema)})`
    const folded = foldedSchemaName(schema)
    if (folded === schema) return create
    const sql = yield* SqlClient.SqlClient
    const store = yield* sql`SELECT 1 FROM pg_catalog.pg_tables
      WHERE schemaname = ${folded} AND tablename = ${migrationsTable}`
    if (store.length === 0) return create
    return (
      `${missing}; earlier versions folded the name to ${folded}, which holds a Gatehouse store: ` +
      `set schema to ${folded}`
    )
  })

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
      const searchPath = options.schema === undefined ? {} : { search_path: searchPathOf(options.schema) }
      const open = (startupParameters: Record<string, string>) =>
        PgClient.make({ url: options.url, keepAlive, startupParameters }).pipe(
          Effect.mapError((cause) => new StoreOpenFailed({ filename: location, cause }))
        )
      // Startup runs on a client of its own, without the timeouts: a migration may rightly take long on a large
      // table, and the migrator's lock on its table waits for another replica that is migrating the same store.
      yield* Effect.scoped(Effect.flatMap(open(searchPath), (sql) => prepare(options, location, sql)))
      const sql = yield* open({
        ...searchPath,
        lock_timeout: settingOf(lockTimeout),
        statement_timeout: settingOf(options.statementTimeout ?? defaultStatementTimeout)
      })
      return sql as SqlClient.SqlClient
    })
  ).pipe(Layer.provide(Reactivity.layer))

// Checks the schema is there and holds a Gatehouse store of this version or older (or nothing), then migrates it.
const prepare = (options: PostgresStoreOptions, location: string, sql: SqlClient.SqlClient) =>
  Effect.gen(function* () {
    // With no schema of that name, `current_schema()` is null and the first CREATE TABLE fails with "no schema
    // has been selected to create in": say what is missing instead.
    const [current] = yield* sql<{ name: string | null }>`SELECT current_schema() AS name`
    if (current?.name == null)
      return yield* new StoreOpenFailed({
        filename: location,
        cause: new Error(yield* missingSchemaReason(options.schema ?? "public"))
      })
    if ((yield* tableNames).length > 0) yield* refuseForeign(location, "PostgreSQL schema", postgresRemedy)
    yield* refuseNewerSchema(location)
    yield* migrate(location)
  }).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.mapError(asStoreError(location)))
