import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Deferred, Duration, Effect, Exit, Layer, Redacted, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { requireEnv } from "../../../../test/support/e2e.js"
import { migrationsTable } from "../../src/store/Migrations.js"
import * as PostgresStore from "../../src/store/PostgresStore.js"
import { storeTroubleOf } from "../../src/store/StoreTrouble.js"
import { freshPostgresSchema } from "./FreshPostgresSchema.js"

// Nothing the server asks PostgreSQL may wait without bound: another session's lock ends the wait after 5 s as
// "locked" (503, Retry-After), a stuck statement is cancelled; startup's migrations alone may wait and run long.
const pg = requireEnv("GATEHOUSE_TEST_PG_URL")
const url = pg.skip ? "" : pg.value

const freshSchema = freshPostgresSchema(url)

const openIn = (
  schema: string,
  options: Partial<PostgresStore.PostgresStoreOptions> = {}
): Effect.Effect<SqlClient.SqlClient, unknown, Scope.Scope> =>
  Effect.map(
    Layer.build(PostgresStore.layer({ url: Redacted.make(url), schema, ...options })),
    Context.get(SqlClient.SqlClient)
  )

/** Holds `lock` (a `LOCK TABLE ...` statement) in a transaction of `admin`'s until the test's scope closes. */
const holdLock = (admin: SqlClient.SqlClient, lock: Effect.Effect<unknown, unknown>) =>
  Effect.gen(function* () {
    const held = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
    yield* admin
      .withTransaction(Effect.andThen(lock, Effect.andThen(Deferred.succeed(held, undefined), Deferred.await(release))))
      .pipe(Effect.orDie, Effect.forkScoped)
    yield* Deferred.await(held)
    return release
  })

/** How long `effect` took, on the live clock, with its exit. */
const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(effect)
    return { exit, millis: (yield* Clock.currentTimeMillis) - started }
  })

// Until PostgreSQL shows a session waiting for a lock on `schema`'s migrations table: the store's startup is queued.
const someoneWaitsForMigrations = (admin: SqlClient.SqlClient, schema: string) =>
  Effect.gen(function* () {
    const table = `${PostgresStore.searchPathOf(schema)}.${PostgresStore.searchPathOf(migrationsTable)}`
    for (;;) {
      const waiting =
        yield* admin`SELECT 1 FROM pg_catalog.pg_locks WHERE NOT granted AND relation = to_regclass(${table})`
      if (waiting.length > 0) return
      yield* Effect.sleep(Duration.millis(50))
    }
  }).pipe(Effect.timeout(Duration.seconds(5)))

describe.skipIf(pg.skip)("the PostgreSQL store's waits", () => {
  it.live(
    "a write waiting on another session's lock fails after 5 s as 'locked', not after the lock is released",
    () =>
      Effect.gen(function* () {
        const { schema, admin } = yield* freshSchema
        const sql = yield* openIn(schema)
        yield* holdLock(admin, admin`LOCK TABLE ${admin(schema)}.events IN EXCLUSIVE MODE`)
        const { exit, millis } = yield* timed(
          // A statement still waiting at 15 s fails as a timeout, which is no store trouble.
          sql`INSERT INTO events ${sql.insert({
            id: "0190a000-0000-7000-8000-000000000001",
            timestamp: new Date(0).toISOString(),
            level: "info",
            category: "config",
            action: "waits_for_the_lock",
            data: "{}"
          })}`.pipe(Effect.timeout(Duration.seconds(15)), Effect.flip)
        )
        const error = Exit.isSuccess(exit) ? exit.value : `no failure: ${String(exit.cause)}`
        assert.strictEqual(storeTroubleOf(error)?.kind, "locked", `failed with ${String(error)}`)
        assert.isAtLeast(millis, 4_500)
        assert.isBelow(millis, 6_500)
      }).pipe(Effect.scoped),
    20_000
  )

  it.live(
    "a statement running past statement_timeout fails as a store error",
    () =>
      Effect.gen(function* () {
        const { schema } = yield* freshSchema
        const sql = yield* openIn(schema, { statementTimeout: Duration.seconds(1) })
        const { exit, millis } = yield* timed(
          sql`SELECT pg_sleep(10)`.pipe(Effect.timeout(Duration.seconds(8)), Effect.flip)
        )
        const error = Exit.isSuccess(exit) ? exit.value : `no failure: ${String(exit.cause)}`
        assert.isDefined(storeTroubleOf(error), `failed with a store error, not ${String(error)}`)
        assert.isBelow(millis, 3_000)
      }).pipe(Effect.scoped),
    15_000
  )

  it.live("the server's sessions wait 5 s for a lock and 30 s for a statement", () =>
    Effect.gen(function* () {
      const { schema } = yield* freshSchema
      const sql = yield* openIn(schema)
      const [lock] = yield* sql<{ lock_timeout: string }>`SHOW lock_timeout`
      const [statement] = yield* sql<{ statement_timeout: string }>`SHOW statement_timeout`
      const [path] = yield* sql<{ name: string }>`SELECT current_schema() AS name`
      assert.deepStrictEqual([lock?.lock_timeout, statement?.statement_timeout, path?.name], ["5s", "30s", schema])
    }).pipe(Effect.scoped)
  )

  it.live(
    "startup waits past 5 s for another replica migrating the same store",
    () =>
      Effect.gen(function* () {
        const { schema, admin } = yield* freshSchema
        yield* Effect.scoped(openIn(schema))
        const release = yield* holdLock(
          admin,
          admin`LOCK TABLE ${admin(schema)}.${admin(migrationsTable)} IN ACCESS EXCLUSIVE MODE`
        )
        // The other replica finishes after the server's lock_timeout would have ended the wait.
        yield* someoneWaitsForMigrations(admin, schema).pipe(
          Effect.andThen(Effect.sleep(Duration.seconds(6))),
          Effect.andThen(Deferred.succeed(release, undefined)),
          Effect.forkScoped
        )
        const { exit, millis } = yield* timed(Effect.scoped(openIn(schema)))
        assert.isTrue(Exit.isSuccess(exit), `startup failed: ${Exit.isFailure(exit) ? String(exit.cause) : ""}`)
        assert.isAtLeast(millis, 5_500)
      }).pipe(Effect.scoped),
    20_000
  )
})
