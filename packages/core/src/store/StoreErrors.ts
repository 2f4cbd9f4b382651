import * as Data from "effect/Data"

/**
 * The database could not be opened or prepared (directory not creatable, not a SQLite file, locked, ...).
 * A typed error rather than a defect because it happens at startup, where the operator needs a clear message.
 */
export class StoreOpenFailed extends Data.TaggedError("StoreOpenFailed")<{
  readonly filename: string
  readonly cause: unknown
}> {
  override get message() {
    const reason = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `cannot open the store ${this.filename}: ${reason}`
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

/**
 * A file is where the store should be, but it is not a Gatehouse store: empty (0 bytes), an empty SQLite database,
 * or a SQLite database with other tables. Starting on it would silently begin a new, empty history, so it is refused
 * until an operator says so (`gatehouse store init --force`, which moves the file aside first).
 */
export class StoreNotGatehouse extends Data.TaggedError("StoreNotGatehouse")<{
  readonly filename: string
  readonly problem: string
}> {
  override get message() {
    return (
      `the store ${this.filename} ${this.problem}, not a Gatehouse store: refusing to start on it (that would ` +
      "begin a new, empty event history). Restore the right file, or run `gatehouse store init --force` with the " +
      "same data directory to move this file aside and create a new store"
    )
  }
}
