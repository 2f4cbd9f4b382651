import * as fs from "node:fs"
import * as path from "node:path"
import Database from "better-sqlite3"
import { Effect, Layer, type Scope } from "effect"
import { migrations } from "./Migrations.js"
import { migrate } from "./Migrator.js"
import * as SqliteEventRepository from "./SqliteEventRepository.js"
import { Store } from "./Store.js"
import { StoreOpenFailed, type StoreSchemaTooNew } from "./StoreErrors.js"

/** Where and how to open the SQLite store. */
export interface SqliteStoreOptions {
  /** The database file, e.g. `<data dir>/gatehouse.db`; its directory is created if missing. `:memory:` works. */
  readonly filename: string
  /** How long a write waits for another connection's lock before failing; default 5000 ms. */
  readonly busyTimeoutMs?: number
}

/**
 * Opens the database, migrates it and returns the {@link Store}; the connection closes with the scope.
 * Open/migration problems are typed errors (they happen at startup); every later storage failure is a defect.
 */
export const make = (
  options: SqliteStoreOptions
): Effect.Effect<Store["Service"], StoreOpenFailed | StoreSchemaTooNew, Scope.Scope> =>
  Effect.gen(function* () {
    const { filename } = options
    const db = yield* Effect.acquireRelease(open(filename), (db) => Effect.sync(() => db.close()))
    yield* configure(db, options)
    yield* migrate(db, migrations, filename).pipe(
      // A SQLite error while migrating (e.g. the file is not a database) is a startup problem, not a defect.
      Effect.catchDefect((cause) => Effect.fail(new StoreOpenFailed({ filename, cause })))
    )
    return Store.of({ events: SqliteEventRepository.make(db) })
  })

/** The SQLite {@link Store} as a layer: `SqliteStore.layer({ filename: "data/gatehouse.db" })`. */
export const layer = (options: SqliteStoreOptions): Layer.Layer<Store, StoreOpenFailed | StoreSchemaTooNew> =>
  Layer.effect(Store, make(options))

/** A fresh in-memory SQLite {@link Store} per layer build, with the real schema: for tests of other modules. */
export const layerMemory: Layer.Layer<Store> = Layer.effect(Store, Effect.orDie(make({ filename: ":memory:" })))

const memory = (filename: string) => filename === ":memory:" || filename === ""

const open = (filename: string) =>
  Effect.try({
    try: () => {
      const created = !memory(filename) && !fs.existsSync(filename)
      if (!memory(filename)) fs.mkdirSync(path.dirname(filename), { recursive: true })
      const db = new Database(filename)
      // The store holds auth requests and node keys: owner-only, like admin.key. SQLite gives the -wal and -shm
      // files the main file's mode.
      if (created) fs.chmodSync(filename, 0o600)
      return db
    },
    catch: (cause) => new StoreOpenFailed({ filename, cause })
  })

const configure = (db: Database.Database, options: SqliteStoreOptions) =>
  Effect.try({
    try: () => {
      // WAL: readers never block the writer. synchronous=NORMAL is crash-safe in WAL mode: a power loss may
      // drop the newest commits but never corrupts the file, and commits avoid an fsync each.
      db.pragma("journal_mode = WAL")
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`)
      db.pragma("synchronous = NORMAL")
      db.pragma("foreign_keys = ON")
    },
    // SQLite opens files lazily: "file is not a database" surfaces here, at the first statement.
    catch: (cause) => new StoreOpenFailed({ filename: options.filename, cause })
  })
