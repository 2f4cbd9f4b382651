import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as SqliteClient from "../../src/store/SqliteClient.js"
import { tempDir } from "./TempDir.js"

const clientAt = (filename: string, busyTimeoutMs?: number) =>
  Effect.map(Layer.build(SqliteClient.layer({ filename, busyTimeoutMs })), (context) =>
    Context.get(context, SqlClient.SqlClient)
  )

const withTable = (sql: SqlClient.SqlClient) =>
  Effect.andThen(
    sql`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, flag INTEGER)`,
    Effect.succeed(sql)
  )

const names = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ name: string }>`SELECT name FROM items ORDER BY id`, (rows) => rows.map((r) => r.name))

describe("SqliteClient: an effect/sql driver over better-sqlite3", () => {
  it.effect("runs statements with parameters, booleans and nulls, and reads rows back", () =>
    Effect.gen(function* () {
      const sql = yield* withTable(yield* clientAt(":memory:"))
      yield* sql`INSERT INTO items ${sql.insert([
        { id: 1, name: "a", flag: true },
        { id: 2, name: "b", flag: null }
      ])}`
      const rows = yield* sql<{
        id: number
        name: string
        flag: number | null
      }>`SELECT * FROM items WHERE id IN ${sql.in([1, 2])} ORDER BY id`
      assert.deepStrictEqual(rows, [
        { id: 1, name: "a", flag: 1 },
        { id: 2, name: "b", flag: null }
      ])
      const values = yield* sql`SELECT id, name FROM items ORDER BY id`.values
      assert.deepStrictEqual(values, [
        [1, "a"],
        [2, "b"]
      ])
    }).pipe(Effect.scoped)
  )

  it.effect("a file is opened in WAL mode with every commit synced (synchronous = FULL), owner-only", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const sql = yield* clientAt(filename)
      const [mode] = yield* sql<{ journal_mode: string }>`PRAGMA journal_mode`
      const [sync] = yield* sql<{ synchronous: number }>`PRAGMA synchronous`
      // 2 is FULL; NORMAL (1) syncs WAL only at checkpoints, so a power loss could take back acknowledged commits.
      assert.deepStrictEqual([mode?.journal_mode, sync?.synchronous], ["wal", 2])
      assert.strictEqual(fs.statSync(filename).mode & 0o777, 0o600)
    }).pipe(Effect.scoped)
  )

  it.effect("a transaction commits on success and rolls back on failure; a nested one is a savepoint", () =>
    Effect.gen(function* () {
      const sql = yield* withTable(yield* clientAt(":memory:"))
      yield* sql.withTransaction(sql`INSERT INTO items (name) VALUES ('kept')`)
      yield* sql
        .withTransaction(Effect.andThen(sql`INSERT INTO items (name) VALUES ('lost')`, Effect.fail("boom")))
        .pipe(Effect.ignore)
      yield* sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`INSERT INTO items (name) VALUES ('outer')`
          yield* sql
            .withTransaction(Effect.andThen(sql`INSERT INTO items (name) VALUES ('inner')`, Effect.fail("boom")))
            .pipe(Effect.ignore)
        })
      )
      assert.deepStrictEqual(yield* names(sql), ["kept", "outer"])
    }).pipe(Effect.scoped)
  )

  // Live: a lock held elsewhere is waited for on the real clock, between attempts.
  it.live("classifies errors: a unique violation, a syntax error, a lock held by another connection", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "lock.db")
      const sql = yield* withTable(yield* clientAt(filename))
      yield* sql`INSERT INTO items (name) VALUES ('a')`
      const unique = yield* Effect.flip(sql`INSERT INTO items (name) VALUES ('a')`)
      assert.instanceOf(unique, SqlError.SqlError)
      assert.instanceOf(unique.reason, SqlError.UniqueViolation)
      const syntax = yield* Effect.flip(sql`SELEC nothing`)
      assert.instanceOf(syntax, SqlError.SqlError)

      // Another connection to the same file holds the write lock: a write here waits the busy timeout, then fails.
      const other = yield* clientAt(filename, 50)
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`INSERT INTO items (name) VALUES ('held')`
            yield* Deferred.succeed(holding, undefined)
            yield* Deferred.await(release)
          })
        )
      )
      yield* Deferred.await(holding)
      const locked = yield* Effect.flip(other`INSERT INTO items (name) VALUES ('blocked')`)
      assert.instanceOf(locked.reason, SqlError.LockTimeoutError)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* other`INSERT INTO items (name) VALUES ('after')`
      assert.deepStrictEqual(yield* names(sql), ["a", "held", "after"])
    }).pipe(Effect.scoped)
  )

  // Another process holding the lock (the sqlite3 shell in a transaction, a backup) is waited for between attempts:
  // SQLite's own wait blocks the thread, and with it every request and stream of the server.
  const holdLock = (sql: SqlClient.SqlClient) =>
    Effect.gen(function* () {
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(
        sql.withTransaction(
          Effect.andThen(sql`INSERT INTO items (name) VALUES ('held')`, Deferred.succeed(holding, undefined)).pipe(
            Effect.andThen(Deferred.await(release))
          )
        )
      )
      yield* Deferred.await(holding)
      return Effect.andThen(Deferred.succeed(release, undefined), Fiber.join(holder))
    })

  it.live(
    "a write waiting for another connection's lock leaves the thread free and goes through once it is released",
    () =>
      Effect.gen(function* () {
        const filename = path.join(yield* tempDir, "wait.db")
        const sql = yield* withTable(yield* clientAt(filename))
        const other = yield* clientAt(filename, 3000)
        const release = yield* holdLock(sql)
        const write = yield* Effect.forkChild(other`INSERT INTO items (name) VALUES ('waited')`)
        // A timer of this fiber's fires while the write waits: a wait inside SQLite would hold the thread for the
        // whole 3 s and then fail.
        yield* Effect.sleep("100 millis")
        assert.isUndefined(write.pollUnsafe(), "the write is still waiting, not failed")
        yield* release
        yield* Fiber.join(write)
        assert.deepStrictEqual(yield* names(sql), ["held", "waited"])
      }).pipe(Effect.scoped)
  )

  it.live("a transaction takes the lock at BEGIN, so one that reads first still waits for another's lock", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "begin.db")
      const sql = yield* withTable(yield* clientAt(filename))
      const other = yield* clientAt(filename, 3000)
      const release = yield* holdLock(sql)
      const transaction = yield* Effect.forkChild(
        other.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* other<{ n: number }>`SELECT count(*) AS n FROM items`
            yield* other`INSERT INTO items (name) VALUES (${`after-${row!.n}`})`
          })
        )
      )
      yield* Effect.sleep("100 millis")
      yield* release
      yield* Fiber.join(transaction)
      // Its read came after the other's commit: the transaction began once the lock was free.
      assert.deepStrictEqual(yield* names(sql), ["held", "after-1"])
    }).pipe(Effect.scoped)
  )

  // A query outside a transaction does not wait for the writing connection: not for a transaction of this server,
  // nor for a write waiting there for another process's lock. In WAL mode it reads the last commit.
  it.live("a query goes on while another fiber's transaction holds the writer, and sees the last commit", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "read.db")
      const sql = yield* withTable(yield* clientAt(filename))
      yield* sql`INSERT INTO items (name) VALUES ('before')`
      const release = yield* holdLock(sql)
      // On one shared connection the query would wait for the transaction, and the deadline would end it.
      assert.deepStrictEqual(yield* names(sql).pipe(Effect.timeout("1 second")), ["before"])
      yield* release
      assert.deepStrictEqual(yield* names(sql), ["before", "held"])
    }).pipe(Effect.scoped)
  )

  it.effect("only plain queries read beside the writer: a WITH that writes, a PRAGMA and RETURNING still write", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "writes.db")
      const sql = yield* withTable(yield* clientAt(filename))
      yield* sql`WITH n AS (SELECT 'with' AS name) INSERT INTO items (name) SELECT name FROM n`
      const [returned] = yield* sql<{ name: string }>`INSERT INTO items (name) VALUES ('returning') RETURNING name`
      yield* sql`PRAGMA user_version = 7`
      const [version] = yield* sql<{ user_version: number }>`PRAGMA user_version`
      assert.deepStrictEqual(
        [yield* names(sql), returned?.name, version?.user_version],
        [["with", "returning"], "returning", 7]
      )
    }).pipe(Effect.scoped)
  )

  it.effect("concurrent transactions on one client run one at a time (one writer)", () =>
    Effect.gen(function* () {
      const sql = yield* withTable(yield* clientAt(":memory:"))
      yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) =>
          sql.withTransaction(
            Effect.gen(function* () {
              const [row] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM items`
              yield* Effect.yieldNow
              yield* sql`INSERT INTO items (name) VALUES (${`item-${row!.n}-${i}`})`
            })
          ),
        { concurrency: "unbounded" }
      )
      const counts = (yield* names(sql)).map((name) => Number(name.split("-")[1]))
      assert.deepStrictEqual(
        counts,
        Array.from({ length: 20 }, (_, i) => i),
        "each saw every commit before it"
      )
    }).pipe(Effect.scoped)
  )
})
