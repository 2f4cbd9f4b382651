import * as Data from "effect/Data"
import * as Formatter from "effect/Formatter"
import { storeTroubleOf } from "./StoreTrouble.js"

// What a cause says, whatever it is: an error-like object's message, else effect's rendering of it. `String` throws
// for an object without a prototype or with a failing `toString` (a migration's failure may carry one), which must
// not turn a clear startup error into a TypeError.
const textOf = (value: unknown): string => {
  if (value instanceof Error) return value.message
  if (typeof value === "string") return value
  const message =
    typeof value === "object" && value !== null ? (value as { readonly message?: unknown }).message : undefined
  return typeof message === "string" ? message : Formatter.format(value)
}

/**
 * What went wrong, from the outermost error down to the one the database itself raised: drivers wrap it (effect/sql's
 * `SqlError` says "Failed to prepare statement" or "PgConnection: Failed to connect"), and the reason an operator can
 * act on ("file is not a database", "role \"x\" does not exist") is only at the bottom, with its code.
 */
export const describeCause = (cause: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = cause
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    const message = textOf(current)
    const code = current instanceof Error && "code" in current ? current.code : undefined
    const text = typeof code === "string" && code !== "" && !message.includes(code) ? `${message} (${code})` : message
    if (text !== "" && !parts.some((part) => part.includes(message))) parts.push(text)
    current = current instanceof Error ? current.cause : undefined
  }
  return parts.join(": ")
}

/**
 * The database could not be opened or prepared (directory not creatable, not a SQLite file, locked, ...).
 * A typed error rather than a defect because it happens at startup, where the operator needs a clear message.
 */
export class StoreOpenFailed extends Data.TaggedError("StoreOpenFailed")<{
  readonly filename: string
  readonly cause: unknown
}> {
  override get message() {
    const opened = `cannot open the store ${this.filename}: ${describeCause(this.cause)}`
    return storeTroubleOf(this.cause)?.kind === "damaged" ? `${opened}. ${damagedStoreRemedy}` : opened
  }
}

/** The database was migrated by a newer Gatehouse; opening it with this one could corrupt it, so it is refused. */
export class StoreSchemaTooNew extends Data.TaggedError("StoreSchemaTooNew")<{
  readonly filename: string
  readonly found: number
  readonly supported: number
}> {
  override get message() {
    return (
      `the store ${this.filename} has schema version ${this.found}, newer than this Gatehouse supports ` +
      `(${this.supported}): upgrade Gatehouse or point it at another data directory`
    )
  }
}

/** What to do about a SQLite file that is not a store: the server's own remedy. */
export const sqliteStoreRemedy =
  "Restore the right file, or run `gatehouse store init --force` with the same data directory to move this file " +
  "aside and create a new store"

/**
 * Something is where the store should be, but it is not a Gatehouse store: an empty (0 bytes) file, an empty SQLite
 * database, a SQLite database or PostgreSQL schema with other tables. Starting on it would silently begin a new,
 * empty history (or mix ours with another application's tables), so it is refused until an operator says so.
 * `remedy` says how, for the kind of store at hand (default: the SQLite file's).
 */
export class StoreNotGatehouse extends Data.TaggedError("StoreNotGatehouse")<{
  readonly filename: string
  readonly problem: string
  readonly remedy?: string | undefined
}> {
  override get message() {
    return (
      `the store ${this.filename} ${this.problem}, not a Gatehouse store: refusing to start on it (that would ` +
      `begin a new, empty event history). ${this.remedy ?? sqliteStoreRemedy}`
    )
  }
}

/** What to do about a damaged SQLite store. */
export const damagedStoreRemedy =
  "Restore it from a backup, or run `gatehouse store init --force` with the same data directory to move it aside " +
  "(it is kept, to recover what it still holds, e.g. with the sqlite3 shell's .recover) and create a new, empty store"

/**
 * The store's file is a Gatehouse store whose pages are damaged (a failing disk, a copy taken while it was
 * written, a crash on a file system that does not keep its promises): SQLite's own check found `problem`.
 */
export class StoreDamaged extends Data.TaggedError("StoreDamaged")<{
  readonly filename: string
  readonly problem: string
}> {
  override get message() {
    return `the store ${this.filename} is damaged (${this.problem}). ${damagedStoreRemedy}`
  }
}
