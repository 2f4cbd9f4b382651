import type BetterSqlite3 from "better-sqlite3"
import { Clock, DateTime, Effect } from "effect"
import { StoreSchemaTooNew } from "./StoreErrors.js"

/** One step of the schema: versions start at 1 and go up by one, and a released migration is never edited. */
export interface Migration {
  readonly version: number
  readonly name: string
  /** SQL to run, or a function for data migrations that need code; it runs inside the migration transaction. */
  readonly up: string | ((db: BetterSqlite3.Database) => void)
}

type Outcome =
  | { readonly _tag: "Migrated"; readonly applied: ReadonlyArray<number> }
  | { readonly _tag: "TooNew"; readonly found: number }

/**
 * Brings the database to the newest schema: pending migrations run in order, in one `BEGIN IMMEDIATE`
 * transaction, so a crash leaves the old schema intact and a second process waits rather than migrating twice.
 * Returns the versions applied (empty when already current). SQLite failures are defects.
 */
export const migrate: (
  db: BetterSqlite3.Database,
  migrations: ReadonlyArray<Migration>,
  filename: string
) => Effect.Effect<ReadonlyArray<number>, StoreSchemaTooNew> = Effect.fnUntraced(function* (
  db: BetterSqlite3.Database,
  migrations: ReadonlyArray<Migration>,
  filename: string
) {
  const supported = yield* checkOrder(migrations)
  const appliedAt = DateTime.formatIso(DateTime.makeUnsafe(yield* Clock.currentTimeMillis))
  const outcome = yield* Effect.sync(() =>
    db
      .transaction((): Outcome => {
        db.exec(
          "CREATE TABLE IF NOT EXISTS schema_migrations " +
            "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        const row = db.prepare("SELECT max(version) AS version FROM schema_migrations").get() as {
          version: number | null
        }
        const current = row.version ?? 0
        // Checked before touching anything: a newer schema may mean things this code cannot know about.
        if (current > supported) return { _tag: "TooNew", found: current }
        const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
        const pending = migrations.filter((m) => m.version > current)
        for (const m of pending) {
          if (typeof m.up === "string") db.exec(m.up)
          else m.up(db)
          record.run(m.version, m.name, appliedAt)
        }
        return { _tag: "Migrated", applied: pending.map((m) => m.version) }
      })
      .immediate()
  )
  if (outcome._tag === "TooNew") {
    return yield* new StoreSchemaTooNew({ filename, found: outcome.found, supported })
  }
  return outcome.applied
})

/** The newest version; a list with gaps or out of order is a programming error, hence a defect. */
const checkOrder = (migrations: ReadonlyArray<Migration>) =>
  Effect.suspend(() => {
    const bad = migrations.findIndex((m, i) => m.version !== i + 1)
    return bad === -1
      ? Effect.succeed(migrations.length)
      : Effect.die(new Error(`migration #${bad} has version ${migrations[bad]?.version}, expected ${bad + 1}`))
  })
