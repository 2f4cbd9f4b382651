import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as SqliteClient from "../../src/store/SqliteClient.js"
import { storeTroubleIn, storeTroubleOf } from "../../src/store/StoreTrouble.js"
import { tempDir } from "./TempDir.js"

// Real failures of a real SQLite file, each the way an operator meets it.

const clientAt = (filename: string, busyTimeoutMs?: number) =>
  Effect.map(Layer.build(SqliteClient.layer({ filename, busyTimeoutMs })), (context) =>
    Context.get(context, SqlClient.SqlClient)
  )

const withItems = Effect.fnUntraced(function* (filename: string) {
  const sql = yield* clientAt(filename)
  yield* sql`CREATE TABLE items (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`
  return sql
})

const problemOf = (failure: unknown) => storeTroubleOf(failure)?.problem

describe("storeTroubleOf: what is wrong with the store, from a failed statement", () => {
  it.effect("a store that cannot be written: read-only", () =>
    Effect.gen(function* () {
      const sql = yield* withItems(path.join(yield* tempDir, "ro.db"))
      yield* sql`PRAGMA query_only = 1`
      const failure = yield* Effect.flip(sql`INSERT INTO items (body) VALUES ('x')`)
      assert.deepStrictEqual(storeTroubleOf(failure), {
        kind: "read-only",
        problem: "cannot be written (read-only or permission denied)",
        transient: false
      })
    }).pipe(Effect.scoped)
  )

  it.effect("a store with no room left: full", () =>
    Effect.gen(function* () {
      const sql = yield* withItems(path.join(yield* tempDir, "full.db"))
      const [pages] = yield* sql<{ page_count: number }>`PRAGMA page_count`
      // No page may be added: what a full disk does to SQLite, without filling one.
      yield* sql.unsafe(`PRAGMA max_page_count = ${pages!.page_count}`)
      const failure = yield* Effect.flip(sql`INSERT INTO items (body) VALUES (${"x".repeat(100_000)})`)
      assert.strictEqual(problemOf(failure), "has no space left")
    }).pipe(Effect.scoped)
  )

  it.effect("a store whose pages were overwritten: damaged", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "damaged.db")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const sql = yield* withItems(filename)
          yield* sql`INSERT INTO items (body) VALUES (${"x".repeat(50_000)})`
          yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
        })
      )
      // The table's pages (after the schema's first page) overwritten, as a failing disk would.
      const handle = fs.openSync(filename, "r+")
      fs.writeSync(handle, Buffer.alloc(4096 * 8, 0x5a), 0, 4096 * 8, 4096)
      fs.closeSync(handle)
      const sql = yield* clientAt(filename)
      const failure = yield* Effect.flip(sql`SELECT length(body) AS n FROM items`)
      assert.strictEqual(problemOf(failure), "is damaged")
    }).pipe(Effect.scoped)
  )

  it.live("a store another connection has locked: locked, and waiting may help", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "locked.db")
      const sql = yield* withItems(filename)
      const other = yield* clientAt(filename, 20)
      const failure = yield* sql.withTransaction(
        Effect.andThen(sql`INSERT INTO items (body) VALUES ('held')`, Effect.flip(other`DELETE FROM items`))
      )
      assert.deepStrictEqual(storeTroubleOf(failure), {
        kind: "locked",
        problem: "is locked by another process",
        transient: true
      })
    }).pipe(Effect.scoped)
  )

  it.effect("found as a defect in a request's cause, or kept as another error's cause; nothing else is", () =>
    Effect.gen(function* () {
      const sql = yield* withItems(path.join(yield* tempDir, "cause.db"))
      yield* sql`PRAGMA query_only = 1`
      const failure = yield* Effect.flip(sql`INSERT INTO items (body) VALUES ('x')`)
      const wrapped = new Error("publishing failed", { cause: failure })
      assert.isDefined(storeTroubleIn(Cause.die(failure)))
      assert.isDefined(storeTroubleIn(Cause.fail(wrapped)))
      assert.isUndefined(storeTroubleIn(Cause.die(new Error("SQLITE_FULL"))))
      assert.isUndefined(storeTroubleOf({ code: "SQLITE_FULL" }))
    }).pipe(Effect.scoped)
  )
})
