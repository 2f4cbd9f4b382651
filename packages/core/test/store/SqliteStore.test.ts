import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { v7 } from "uuid"
import type { Event } from "../../src/domain/Event.js"
import { migrations } from "../../src/store/Migrations.js"
import * as SqliteStore from "../../src/store/SqliteStore.js"
import { Store } from "../../src/store/Store.js"
import { input } from "../events/TestBus.js"
import { tempDir } from "./TempDir.js"

/** The n-th event: ids follow n, so they sort like n. */
const event = (n: number, category: "config" | "health" = "config"): Event =>
  ({
    ...input(`a${n}`, category),
    id: v7({ msecs: 1_000 + n, seq: 0 }),
    timestamp: new Date(1_000 + n).toISOString()
  }) as Event

/** Opens the store, runs `f` with it and closes it again. */
const withStore = <A, E>(filename: string, f: (store: Store["Service"]) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(SqliteStore.make({ filename }), f))

/** Reads a closed database file directly, bypassing the store. */
const raw = <A>(filename: string, f: (db: Database.Database) => A): A => {
  const db = new Database(filename, { readonly: true })
  const result = f(db)
  db.close()
  return result
}

describe("SqliteStore", () => {
  it.effect("creates the parent directory and an owner-only WAL database", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "nested", "data", "gatehouse.db")
      yield* withStore(filename, (store) => store.events.append(event(1), 10))
      assert.isTrue(fs.existsSync(filename))
      assert.strictEqual(fs.statSync(filename).mode & 0o777, 0o600)
      assert.strictEqual(
        raw(filename, (db) => db.pragma("journal_mode", { simple: true })),
        "wal"
      )
    })
  )

  it.effect("closes the database when the scope closes (the WAL file is checkpointed away)", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      yield* withStore(filename, (store) =>
        Effect.gen(function* () {
          yield* store.events.append(event(1), 10)
          assert.isTrue(fs.existsSync(`${filename}-wal`), "open: the WAL file exists")
        })
      )
      assert.isFalse(fs.existsSync(`${filename}-wal`), "closed: SQLite removed the WAL file")
    })
  )

  it.effect("runs each migration once, across reopening", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      yield* withStore(filename, () => Effect.void)
      yield* TestClock.adjust("1 hour")
      yield* withStore(filename, () => Effect.void)
      const rows = raw(filename, (db) => db.prepare("SELECT * FROM schema_migrations ORDER BY version").all())
      assert.deepStrictEqual(
        rows,
        migrations.map((m) => ({ version: m.version, name: m.name, applied_at: "1970-01-01T00:00:00.000Z" }))
      )
    })
  )

  it.effect("refuses a database from a newer schema version, without touching it", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const future = migrations.length + 1
      const db = new Database(filename)
      db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
      db.prepare("INSERT INTO schema_migrations VALUES (?, 'from the future', 'x')").run(future)
      db.close()

      const error = yield* Effect.flip(withStore(filename, () => Effect.void))
      assert.strictEqual(error._tag, "StoreSchemaTooNew")
      assert.include(
        error.message,
        `schema version ${future}, newer than this Gatehouse supports (${migrations.length})`
      )
      assert.include(error.message, filename)
      const tables = raw(filename, (db) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all())
      assert.deepStrictEqual(tables, [{ name: "schema_migrations" }])
    })
  )

  it.effect("reports a file that is not a database as StoreOpenFailed", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      fs.writeFileSync(filename, "this is not a sqlite database, just some text that is long enough".repeat(20))
      const error = yield* Effect.flip(withStore(filename, () => Effect.void))
      assert.strictEqual(error._tag, "StoreOpenFailed")
      assert.include(error.message, filename)
    })
  )

  it.effect("keeps the history across closing and reopening", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const events = [event(1), event(2, "health"), event(3)]
      yield* withStore(filename, (store) => Effect.forEach(events, (e) => store.events.append(e, 100)))
      const reread = yield* withStore(filename, (store) => store.events.list({}))
      assert.deepStrictEqual(reread, events)
    })
  )

  it.effect("layerMemory gives each build its own empty database", () =>
    Effect.gen(function* () {
      const useOnce = Effect.gen(function* () {
        const store = yield* Store
        const before = yield* store.events.list({})
        yield* store.events.append(event(1), 10)
        return before.length
      })
      assert.strictEqual(yield* Effect.provide(useOnce, SqliteStore.layerMemory), 0)
      assert.strictEqual(yield* Effect.provide(useOnce, SqliteStore.layerMemory), 0)
    })
  )

  it.effect("layer fails with the open error instead of dying", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "file")
      fs.writeFileSync(file, "")
      // The parent "directory" is a regular file: mkdir fails.
      const layer = SqliteStore.layer({ filename: path.join(file, "gatehouse.db") })
      const error = yield* Effect.flip(Effect.scoped(Layer.build(layer)))
      assert.strictEqual(error._tag, "StoreOpenFailed")
      assert.include(error.message, "cannot open the store")
    })
  )
})
