import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Cause, Effect, Exit } from "effect"
import { type Migration, migrate } from "../../src/store/Migrator.js"

const tables = (db: Database.Database) =>
  db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((row) => (row as { name: string }).name)

const openMemory = Effect.acquireRelease(
  Effect.sync(() => new Database(":memory:")),
  (db) => Effect.sync(() => db.close())
)

const m1: Migration = { version: 1, name: "a", up: "CREATE TABLE a (x INTEGER)" }
const m2: Migration = {
  version: 2,
  name: "b",
  up: (db) => {
    db.exec("CREATE TABLE b (y TEXT)")
    db.prepare("INSERT INTO b VALUES ('seeded by code')").run()
  }
}

describe("Migrator", () => {
  it.effect("applies pending migrations in order, then nothing", () =>
    Effect.gen(function* () {
      const db = yield* openMemory
      assert.deepStrictEqual(yield* migrate(db, [m1], "test.db"), [1])
      assert.deepStrictEqual(yield* migrate(db, [m1, m2], "test.db"), [2])
      assert.deepStrictEqual(yield* migrate(db, [m1, m2], "test.db"), [])
      assert.deepStrictEqual(tables(db), ["a", "b", "schema_migrations"])
      assert.deepStrictEqual(db.prepare("SELECT y FROM b").all(), [{ y: "seeded by code" }])
      assert.deepStrictEqual(db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all(), [
        { version: 1, name: "a" },
        { version: 2, name: "b" }
      ])
    })
  )

  it.effect("rolls back every pending migration when one fails", () =>
    Effect.gen(function* () {
      const db = yield* openMemory
      const broken: Migration = { version: 2, name: "broken", up: "CREATE TABLE oops (" }
      const exit = yield* Effect.exit(migrate(db, [m1, broken], "test.db"))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), "a SQL error is a defect")
      assert.deepStrictEqual(tables(db), [], "neither table a nor the migration record survived")
    })
  )

  it.effect("fails with StoreSchemaTooNew when the database is ahead of the code", () =>
    Effect.gen(function* () {
      const db = yield* openMemory
      yield* migrate(db, [m1, m2], "test.db")
      const error = yield* Effect.flip(migrate(db, [m1], "test.db"))
      assert.strictEqual(error._tag, "StoreSchemaTooNew")
      assert.strictEqual(error.found, 2)
      assert.strictEqual(error.supported, 1)
    })
  )

  it.effect("rejects a migration list with a gap as a defect", () =>
    Effect.gen(function* () {
      const db = yield* openMemory
      const exit = yield* Effect.exit(migrate(db, [m1, { ...m2, version: 3 }], "test.db"))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      assert.deepStrictEqual(tables(db), [])
    })
  )
})
