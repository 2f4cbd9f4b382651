import * as Cause from "effect/Cause"
import * as SqlError from "effect/sql/SqlError"

/**
 * What is wrong with the store when a request failed on it, in words an operator can act on. Repositories turn a
 * store failure into a defect (nothing a caller could do about it), and a transport would answer any defect with a
 * generic 500; a store that is full, locked by another process, read-only, damaged or unreachable is instead a
 * server that cannot serve for now (503, gRPC UNAVAILABLE), and saying which tells the operator where to look.
 */
export interface StoreTrouble {
  readonly kind: "locked" | "full" | "read-only" | "damaged" | "failing" | "unreachable" | "unknown"
  /** Completes "the store ...": "is locked by another process", "has no space left", ... */
  readonly problem: string
  /** Whether waiting can help (another process's lock, a restarting database), so a client may retry soon. */
  readonly transient: boolean
}

const locked: StoreTrouble = { kind: "locked", problem: "is locked by another process", transient: true }
const full: StoreTrouble = { kind: "full", problem: "has no space left", transient: false }
const readOnly: StoreTrouble = {
  kind: "read-only",
  problem: "cannot be written (read-only or permission denied)",
  transient: false
}
const damaged: StoreTrouble = { kind: "damaged", problem: "is damaged", transient: false }
const failing: StoreTrouble = { kind: "failing", problem: "cannot be read or written (an I/O error)", transient: false }
const unreachable: StoreTrouble = { kind: "unreachable", problem: "cannot be reached", transient: true }
const unknown: StoreTrouble = { kind: "unknown", problem: "failed", transient: false }

// SQLite's primary result codes by name (better-sqlite3 gives the extended name: SQLITE_IOERR_WRITE, ...).
const sqliteTroubles: ReadonlyArray<readonly [string, StoreTrouble]> = [
  ["SQLITE_BUSY", locked],
  ["SQLITE_LOCKED", locked],
  ["SQLITE_FULL", full],
  ["SQLITE_READONLY", readOnly],
  ["SQLITE_PERM", readOnly],
  ["SQLITE_CANTOPEN", readOnly],
  ["SQLITE_CORRUPT", damaged],
  ["SQLITE_NOTADB", damaged],
  ["SQLITE_IOERR", failing]
]

// PostgreSQL's SQLSTATE classes and codes (https://www.postgresql.org/docs/current/errcodes-appendix.html).
const postgresTrouble = (state: string): StoreTrouble | undefined => {
  if (state === "53100") return full // disk_full
  if (state === "25006") return readOnly // read_only_sql_transaction (a standby, or default_transaction_read_only)
  if (state === "XX001" || state === "XX002") return damaged // data_corrupted, index_corrupted
  if (state === "55P03") return locked // lock_not_available
  if (state.startsWith("08") || state.startsWith("57P") || state.startsWith("53")) return unreachable
  return undefined
}

const driverTrouble = (cause: unknown): StoreTrouble | undefined => {
  for (let current = cause, depth = 0; current instanceof Error && depth < 6; depth++) {
    const code = (current as { readonly code?: unknown }).code
    if (typeof code === "string") {
      for (const [name, trouble] of sqliteTroubles) {
        if (code === name || code.startsWith(`${name}_`)) return trouble
      }
      if (/^[0-9A-Z]{5}$/.test(code)) {
        const trouble = postgresTrouble(code)
        if (trouble !== undefined) return trouble
      }
    }
    current = current.cause
  }
  return undefined
}

/** The store's trouble when `error` is a store failure (an effect/sql `SqlError`, or wraps one), else `undefined`. */
export const storeTroubleOf = (error: unknown): StoreTrouble | undefined => {
  // The SqlError itself, or one a wrapper kept as its cause.
  let found: unknown = error
  for (let depth = 0; !SqlError.isSqlError(found) && found instanceof Error && depth < 4; depth++) found = found.cause
  if (!SqlError.isSqlError(found)) return undefined
  const reason = found.reason
  const fromDriver = driverTrouble(reason.cause)
  if (fromDriver !== undefined) return fromDriver
  if (reason instanceof SqlError.LockTimeoutError || reason instanceof SqlError.DeadlockError) return locked
  if (reason instanceof SqlError.ConnectionError) return unreachable
  return unknown
}

/** The store's trouble behind a failed request: the first failure or defect that is a store failure. */
export const storeTroubleIn = (cause: Cause.Cause<unknown>): StoreTrouble | undefined => {
  for (const reason of cause.reasons) {
    const error = Cause.isFailReason(reason) ? reason.error : Cause.isDieReason(reason) ? reason.defect : undefined
    const trouble = storeTroubleOf(error)
    if (trouble !== undefined) return trouble
  }
  return undefined
}
