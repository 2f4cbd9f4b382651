import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type { Event } from "@gatehouse-edge/contract/domain"
import type BetterSqlite3 from "better-sqlite3"
import { Context, Effect, Layer } from "effect"
import { v7 } from "uuid"
import { EventRepository } from "../../src/events/EventRepository.js"
import { latestMigrationId } from "../../src/store/Migrations.js"
import { Database } from "../../src/store/SqliteDriver.js"
import { StoreNotGatehouse, StoreOpenFailed, StoreSchemaTooNew } from "../../src/store/StoreErrors.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { input } from "../events/TestBus.js"
import { tempDir } from "./TempDir.js"

/** The n-th event: ids follow n, so they sort like n. */
const event = (n: number, category: "config" | "health" = "config"): Event =>
  ({
    ...input(`a${n}`, category),
    id: v7({ msecs: 1_000 + n, seq: 0 }),
    timestamp: new Date(1_000 + n).toISOString()
  }) as Event

/** Opens the store, runs `f` with its event repository and closes it again. */
const withStore = <A, E>(filename: string, f: (events: EventRepository["Service"]) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(EventRepository.layer.pipe(Layer.provide(StoreLive.layer({ filename })))), (context) =>
      f(Context.get(context, EventRepository))
    )
  )

/** Reads a closed database file directly, bypassing the store. */
const raw = <A>(filename: string, f: (db: BetterSqlite3.Database) => A): A => {
  const db = new Database(filename, { readonly: true })
  const result = f(db)
  db.close()
  return result
}

const tables = (filename: string) =>
  raw(filename, (db) =>
    (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>
    ).map((t) => t.name)
  )

/** A database exactly as the foundation's own migrator left it, with `events` already in it. */
const foundationDatabase = (filename: string, events: ReadonlyArray<Event>) => {
  const db = new Database(filename)
  db.pragma("journal_mode = WAL")
  db.exec(`
    CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
    CREATE TABLE events (
      id        TEXT PRIMARY KEY NOT NULL,
      timestamp TEXT NOT NULL,
      level     TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
      category  TEXT NOT NULL,
      action    TEXT NOT NULL,
      data      TEXT NOT NULL CHECK (json_valid(data))
    ) WITHOUT ROWID;
    CREATE INDEX events_category_id ON events (category, id);
    INSERT INTO schema_migrations VALUES (1, 'events', '2026-11-01T10:00:00.000Z');
  `)
  const insert = db.prepare("INSERT INTO events VALUES (@id, @timestamp, @level, @category, @action, @data)")
  for (const e of events) insert.run({ ...e, data: JSON.stringify(e.data) })
  db.close()
}

describe("StoreLive (the SQLite store on effect/sql)", () => {
  it.effect("creates the parent directory and an owner-only WAL database", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "nested", "data", "gatehouse.db")
      yield* withStore(filename, (events) => events.append(event(1), 10))
      assert.isTrue(fs.existsSync(filename))
      assert.strictEqual(fs.statSync(filename).mode & 0o777, 0o600)
      assert.strictEqual(
        raw(filename, (db) => db.pragma("journal_mode", { simple: true })),
        "wal"
      )
      assert.isFalse(fs.existsSync(`${filename}.creating`), "created aside, then moved into place")
    })
  )

  it.effect("closes the database when the scope closes (the WAL file is checkpointed away)", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      yield* withStore(filename, (events) =>
        Effect.gen(function* () {
          yield* events.append(event(1), 10)
          assert.isTrue(fs.existsSync(`${filename}-wal`), "open: the WAL file exists")
        })
      )
      assert.isFalse(fs.existsSync(`${filename}-wal`), "closed: SQLite removed the WAL file")
    })
  )

  it.effect("a store deleted with changes still in its log (crash, or rm while in use): a new one, without them", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const filename = path.join(dir, "gatehouse.db")
      // The old store's log, as a kill -9 leaves it: copied while the store is open and has the event in its log.
      const log = yield* withStore(filename, (events) =>
        Effect.andThen(
          events.append(event(1), 10),
          Effect.sync(() => fs.readFileSync(`${filename}-wal`))
        )
      )
      assert.isAbove(log.length, 0)
      fs.rmSync(filename)
      fs.writeFileSync(`${filename}-wal`, log)
      const kept = yield* withStore(filename, (events) => events.list({}))
      assert.deepStrictEqual(kept, [], "the new store holds nothing of the old one")
      const movedAside = fs.readdirSync(dir).filter((name) => /^gatehouse\.db\.bak-.+-wal$/.test(name))
      assert.strictEqual(movedAside.length, 1, fs.readdirSync(dir).join(", "))
      assert.deepStrictEqual(fs.readFileSync(path.join(dir, movedAside[0]!)), log, "the old log kept, moved aside")
    })
  )

  it.effect("runs each migration once, across reopening, through effect/sql's Migrator", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      yield* withStore(filename, () => Effect.void)
      const first = raw(filename, (db) => db.prepare("SELECT * FROM effect_sql_migrations ORDER BY migration_id").all())
      yield* withStore(filename, () => Effect.void)
      const again = raw(filename, (db) => db.prepare("SELECT * FROM effect_sql_migrations ORDER BY migration_id").all())
      assert.deepStrictEqual(again, first)
      assert.deepStrictEqual(
        (first as Array<{ migration_id: number; name: string }>).map((m) => [m.migration_id, m.name]),
        [
          [1, "events"],
          [2, "api_keys"],
          [3, "auth_requests"],
          [4, "sessions"],
          [5, "uptime"],
          [6, "oidc_logins_indexes"],
          [7, "auth_requests_paging"],
          [8, "event_marks"],
          [9, "auth_requests_pending"],
          [10, "session_admission"],
          [11, "login_failed_names"],
          [12, "event_marks_requests"],
          [13, "auth_requests_expired"],
          [14, "event_category_marks"]
        ]
      )
    })
  )

  it.effect("adopts a database of the foundation's own migrator, keeping every event", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const history = [event(1), event(2, "health"), event(3)]
      foundationDatabase(filename, history)
      const read = yield* withStore(filename, (events) => events.list({}))
      assert.deepStrictEqual(read, history)
      assert.deepStrictEqual(tables(filename), [
        "api_keys",
        "auth_nodes",
        "auth_requests",
        "auth_users",
        "effect_sql_migrations",
        "event_category_marks",
        "event_marks",
        "events",
        "oidc_logins",
        "server_secrets",
        "sessions",
        "uptime_buckets"
      ])
      const recorded = raw(filename, (db) =>
        db.prepare("SELECT migration_id, name, created_at FROM effect_sql_migrations ORDER BY migration_id").all()
      ) as Array<{ migration_id: number; name: string; created_at: string }>
      assert.deepStrictEqual(recorded[0], { migration_id: 1, name: "events", created_at: "2026-11-01T10:00:00.000Z" })
      assert.strictEqual(recorded[1]?.name, "api_keys")
      // Reopening changes nothing more.
      assert.deepStrictEqual(yield* withStore(filename, (events) => events.list({})), history)
    })
  )

  it.effect("refuses a database from a newer schema version, without touching it", () =>
    Effect.gen(function* () {
      for (const legacy of [false, true]) {
        const filename = path.join(yield* tempDir, `gatehouse-${legacy}.db`)
        const future = latestMigrationId + 1
        const db = new Database(filename)
        if (legacy) {
          db.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT)")
          db.prepare("INSERT INTO schema_migrations VALUES (?, 'from the future', 'x')").run(future)
        } else {
          db.exec(
            "CREATE TABLE effect_sql_migrations (migration_id integer PRIMARY KEY, created_at datetime, name TEXT)"
          )
          db.prepare("INSERT INTO effect_sql_migrations VALUES (?, 'x', 'from the future')").run(future)
        }
        db.close()
        const before = tables(filename)

        const error = yield* Effect.flip(withStore(filename, () => Effect.void))
        assert.instanceOf(error, StoreSchemaTooNew)
        assert.include(
          error.message,
          `schema version ${future}, newer than this Gatehouse supports (${latestMigrationId})`
        )
        assert.include(error.message, filename)
        assert.deepStrictEqual(tables(filename), before)
      }
    })
  )

  it.effect("refuses an empty file, an empty database and another program's database, without touching them", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const empty = path.join(dir, "empty.db")
      fs.writeFileSync(empty, "")
      const bare = path.join(dir, "bare.db")
      new Database(bare).pragma("user_version = 7")
      const foreign = path.join(dir, "foreign.db")
      const db = new Database(foreign)
      db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY); CREATE TABLE orders (id INTEGER PRIMARY KEY)")
      db.close()
      const cases: ReadonlyArray<readonly [string, string]> = [
        [empty, "is empty (0 bytes)"],
        [bare, "is an empty SQLite database"],
        [foreign, "is a SQLite database with other tables (customers, orders)"]
      ]
      for (const [filename, problem] of cases) {
        const bytes = fs.readFileSync(filename)
        const error = yield* Effect.flip(withStore(filename, () => Effect.void))
        assert.instanceOf(error, StoreNotGatehouse, filename)
        assert.include(error.message, `the store ${filename} ${problem}, not a Gatehouse store`)
        assert.include(error.message, "gatehouse store init --force")
        assert.deepStrictEqual(fs.readFileSync(filename), bytes, `${filename} untouched`)
      }
    })
  )

  it.effect("refuses a file that is not a SQLite database as not a store, without touching it", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      fs.writeFileSync(filename, "this is not a sqlite database, just some text that is long enough".repeat(20))
      const bytes = fs.readFileSync(filename)
      const error = yield* Effect.flip(withStore(filename, () => Effect.void))
      assert.instanceOf(error, StoreNotGatehouse)
      assert.include(error.message, `the store ${filename} is not a SQLite database, not a Gatehouse store`)
      assert.include(error.message, "gatehouse store init --force")
      assert.deepStrictEqual(fs.readFileSync(filename), bytes)
    })
  )

  it("an open failure names the database's own reason, beneath the driver's wrapper", () => {
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })
    const wrapped = new Error("Failed to execute statement", { cause: busy })
    const error = new StoreOpenFailed({ filename: "/data/gatehouse.db", cause: wrapped })
    assert.strictEqual(
      error.message,
      "cannot open the store /data/gatehouse.db: Failed to execute statement: database is locked (SQLITE_BUSY)"
    )
  })

  it.effect("keeps the history across closing and reopening", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const events = [event(1), event(2, "health"), event(3)]
      yield* withStore(filename, (repository) => Effect.forEach(events, (e) => repository.append(e, 100)))
      const reread = yield* withStore(filename, (repository) => repository.list({}))
      assert.deepStrictEqual(reread, events)
    })
  )

  it.effect("layerMemory gives each build its own empty database", () =>
    Effect.gen(function* () {
      const useOnce = Effect.gen(function* () {
        const events = yield* EventRepository
        const before = yield* events.list({})
        yield* events.append(event(1), 10)
        return before.length
      })
      const layer = EventRepository.layer.pipe(Layer.provide(StoreLive.layerMemory))
      assert.strictEqual(yield* Effect.provide(useOnce, layer), 0)
      assert.strictEqual(yield* Effect.provide(useOnce, layer), 0)
    })
  )

  it.effect("layer fails with the open error instead of dying", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = path.join(dir, "file")
      fs.writeFileSync(file, "")
      // The parent "directory" is a regular file: mkdir fails.
      const layer = StoreLive.layer({ filename: path.join(file, "gatehouse.db") })
      const error = yield* Effect.flip(Effect.scoped(Layer.build(layer)))
      assert.instanceOf(error, StoreOpenFailed)
      assert.include(error.message, "cannot open the store")
    })
  )
})
