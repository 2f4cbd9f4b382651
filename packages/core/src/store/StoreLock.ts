import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { Database } from "./SqliteDriver.js"

/** Another process holds the store's lock: another server on the same data dir. */
export class StoreInUse extends Data.TaggedError("StoreInUse")<{ readonly lockFile: string }> {
  override get message() {
    return (
      `another process (another gatehouse serve?) uses this data dir: ${this.lockFile} is locked. ` +
      "Two servers on one SQLite store would not see each other's changes (a watcher on one never hears a verdict " +
      "given on the other): stop that one, or give this one its own data dir"
    )
  }
}

/** The lock could not be taken for another reason than another holder (permissions, a read-only disk). */
export class StoreLockFailed extends Data.TaggedError("StoreLockFailed")<{
  readonly lockFile: string
  readonly reason: string
}> {
  override get message() {
    return `cannot lock ${this.lockFile}: ${this.reason}`
  }
}

const isBusy = (error: unknown) => (error as { code?: string } | undefined)?.code?.startsWith("SQLITE_BUSY") === true

/**
 * Holds `<dataDir>/gatehouse.lock` for the scope: one server per SQLite store. The lock is SQLite's own (a small
 * database held in exclusive locking mode), so it is the operating system's file lock: a server that dies, however,
 * leaves no stale lock behind, and nothing depends on process ids. A second process asking for it fails at once.
 */
export const holdStoreLock = (dataDir: string) => {
  const lockFile = path.join(dataDir, "gatehouse.lock")
  const failed = (error: unknown) =>
    isBusy(error)
      ? new StoreInUse({ lockFile })
      : new StoreLockFailed({ lockFile, reason: error instanceof Error ? error.message : String(error) })
  return Effect.gen(function* () {
    yield* Effect.tryPromise({
      try: () => fs.mkdir(dataDir, { recursive: true, mode: 0o700 }),
      catch: (error) => new StoreLockFailed({ lockFile, reason: String(error) })
    })
    // Closed with the scope, whether the lock was taken or not.
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => new Database(lockFile, { timeout: 0 }), catch: failed }),
      (opened) => Effect.sync(() => opened.close())
    )
    // The first write takes the exclusive lock, which exclusive locking mode keeps until the connection closes.
    yield* Effect.try({
      try: () => {
        db.pragma("locking_mode = EXCLUSIVE")
        db.exec("BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lock (held INTEGER); COMMIT")
      },
      catch: failed
    })
  })
}
