import * as fs from "node:fs/promises"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqliteClient from "./SqliteClient.js"
import {
  describeCause,
  StoreDamaged,
  StoreNotGatehouse,
  StoreOpenFailed,
  type StoreSchemaTooNew
} from "./StoreErrors.js"
import { asStoreError, migrate, refuseForeign, refuseNewerSchema } from "./StoreSchema.js"
import { storeTroubleOf } from "./StoreTrouble.js"

/** Why a store could not be opened. */
export type StoreError = StoreOpenFailed | StoreSchemaTooNew | StoreNotGatehouse

/** Where the store is. */
export interface StoreOptions {
  /** The SQLite file, e.g. `<data dir>/gatehouse.db`. */
  readonly filename: string
  readonly busyTimeoutMs?: number | undefined
}

/** The client on a file, with its Reactivity, errors as startup errors. */
const clientOn = (filename: string, busyTimeoutMs: number | undefined, readonly = false) =>
  Layer.effect(
    SqlClient.SqlClient,
    SqliteClient.make({ filename, busyTimeoutMs, readonly }).pipe(Effect.mapError(asStoreError(filename)))
  ).pipe(Layer.provide(Reactivity.layer))

/** Runs `check` on a read-only connection, so a file that turns out not to be ours is left exactly as it was. */
const inspectReadOnly = <E>(filename: string, check: Effect.Effect<void, E, SqlClient.SqlClient>) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(clientOn(filename, undefined, true)), (context) => Effect.provideContext(check, context))
  )

/** The size of the file at `filename`, if there is one. */
const sizeOf = (filename: string) =>
  Effect.tryPromise({ try: () => fs.stat(filename), catch: (error) => error as NodeJS.ErrnoException }).pipe(
    Effect.map((stat) => Option.some(stat.size)),
    Effect.catch((error) =>
      error.code === "ENOENT" ? Effect.succeedNone : Effect.fail(new StoreOpenFailed({ filename, cause: error }))
    )
  )

// What SQLite keeps next to a database file: its write-ahead log and the log's index.
const sideFiles = ["-wal", "-shm"] as const

/**
 * Moves aside what a store that is gone left next to `filename` (it was deleted while in use, or after a crash,
 * with changes still in its log): SQLite would replay that log onto a new store of the same name, bringing the old
 * data back or corrupting it. Kept as `<file>.bak-<time>-wal` (as `store init --force` names what it moves aside).
 */
const moveOrphanedLog = Effect.fnUntraced(function* (filename: string) {
  const stamp = DateTime.formatIso(DateTime.makeUnsafe(yield* Clock.currentTimeMillis)).replace(/[:.]/g, "-")
  for (const suffix of sideFiles) {
    const orphan = `${filename}${suffix}`
    if (Option.isNone(yield* sizeOf(orphan))) continue
    const backup = `${filename}.bak-${stamp}${suffix}`
    yield* Effect.tryPromise({
      try: () => fs.rename(orphan, backup),
      catch: (cause) => new StoreOpenFailed({ filename, cause })
    })
    yield* Effect.logWarning(
      `${orphan} was left by a store that is gone (deleted while in use, or after a crash): moved to ${backup}, ` +
        "so the new store does not take in its changes"
    )
  }
})

/**
 * Creates a new store next to `filename` and moves it into place only once it is complete, so a crash while
 * creating it never leaves a half-made (or 0-byte) file that a later start would rightly refuse.
 */
const create = (filename: string, busyTimeoutMs: number | undefined) =>
  Effect.gen(function* () {
    yield* moveOrphanedLog(filename)
    const fresh = `${filename}.creating`
    // A creation cut short leaves its own log next to it too.
    for (const leftover of [fresh, ...sideFiles.map((suffix) => `${fresh}${suffix}`)]) {
      yield* Effect.tryPromise({
        try: () => fs.rm(leftover, { force: true }),
        catch: (cause) => new StoreOpenFailed({ filename, cause })
      })
    }
    yield* Effect.scoped(
      Effect.flatMap(Layer.build(clientOn(fresh, busyTimeoutMs)), (context) =>
        migrate(filename).pipe(Effect.provideContext(context), Effect.mapError(asStoreError(filename)))
      )
    )
    yield* Effect.tryPromise({
      try: () => fs.rename(fresh, filename),
      catch: (cause) => new StoreOpenFailed({ filename, cause })
    })
  })

/**
 * The store as an effect/sql `SqlClient`: the SQLite file is created (complete, or not at all), or checked to be a
 * Gatehouse store and migrated to the newest schema (foundation-era files are adopted, their history kept). An empty
 * or foreign file is refused, and so is a schema newer than this build. Repositories take the `SqlClient`.
 */
export const layer = (options: StoreOptions): Layer.Layer<SqlClient.SqlClient, StoreError> => {
  const { filename, busyTimeoutMs } = options
  if (filename === ":memory:" || filename === "") return layerMemory
  return Layer.unwrap(
    Effect.gen(function* () {
      const size = yield* sizeOf(filename)
      if (Option.isNone(size)) yield* create(filename, busyTimeoutMs)
      else if (size.value === 0) return yield* new StoreNotGatehouse({ filename, problem: "is empty (0 bytes)" })
      else {
        yield* inspectReadOnly(
          filename,
          Effect.andThen(refuseForeign(filename), refuseNewerSchema(filename)).pipe(
            Effect.mapError(asStoreError(filename))
          )
        )
      }
      const checked = Layer.effectDiscard(migrate(filename).pipe(Effect.mapError(asStoreError(filename))))
      return checked.pipe(Layer.provideMerge(clientOn(filename, busyTimeoutMs)))
    })
  )
}

/** A fresh in-memory store per build, with the real schema: for tests of other modules. */
export const layerMemory: Layer.Layer<SqlClient.SqlClient> = Layer.effectDiscard(
  Effect.orDie(migrate(":memory:"))
).pipe(Layer.provideMerge(Layer.orDie(clientOn(":memory:", undefined))))

/**
 * Reads every page of the store and checks it (SQLite's `quick_check`): a damaged store is found here rather than
 * by the first request that reads the damaged page. It reads the whole file, so it is for `gatehouse store init`
 * (an operator's check), not for every start.
 */
export const checkIntact = (
  filename: string
): Effect.Effect<void, StoreDamaged | StoreOpenFailed, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly quick_check: string }>`PRAGMA quick_check`.pipe(
      Effect.mapError((error) =>
        storeTroubleOf(error)?.kind === "damaged"
          ? new StoreDamaged({ filename, problem: describeCause(error) })
          : new StoreOpenFailed({ filename, cause: error })
      )
    )
    const found = rows.map((row) => row.quick_check)
    if (found.length === 1 && found[0] === "ok") return
    const shown = found.slice(0, 3).join("; ")
    return yield* new StoreDamaged({ filename, problem: found.length > 3 ? `${shown}; …` : shown })
  })
