import * as fs from "node:fs/promises"
import * as path from "node:path"
import type BetterSqlite3 from "better-sqlite3"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Reactivity from "effect/reactivity/Reactivity"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import * as SqlClient from "effect/sql/SqlClient"
import type * as SqlConnection from "effect/sql/SqlConnection"
import * as SqlError from "effect/sql/SqlError"
import * as Statement from "effect/sql/Statement"
import { Database } from "./SqliteDriver.js"

/** Where and how to open a SQLite database. */
export interface SqliteClientOptions {
  /** The database file; its directory is created if missing. `:memory:` works. */
  readonly filename: string
  /**
   * How long a statement waits for another process's lock before failing; default 5000 ms. The wait does not
   * block the thread beyond a few milliseconds at a time.
   */
  readonly busyTimeoutMs?: number | undefined
  /** Prepared statements kept per connection; default 200. */
  readonly statementCacheSize?: number | undefined
  /** Opens an existing file read-only and changes nothing in it (no WAL switch, no mode change): to inspect it. */
  readonly readonly?: boolean | undefined
}

const classify = (cause: unknown, message: string, operation: string) =>
  new SqlError.SqlError({ reason: SqlError.classifySqliteError(cause, { message, operation }) })

/**
 * How long SQLite itself may wait for a lock, blocking the thread (better-sqlite3 is synchronous: the whole server,
 * health checks and open streams included, stands still meanwhile). Longer waits happen between attempts, off the
 * thread (see `patiently`).
 */
const BLOCKING_BUSY_TIMEOUT_MS = 10
/** The longest pause between two attempts at a lock another process holds. */
const MAX_BUSY_PAUSE_MS = 100

// Another connection holds the lock: SQLITE_BUSY, or its recovery variant (another connection rebuilds the WAL
// index). Not SQLITE_BUSY_SNAPSHOT: a transaction that read an older snapshot cannot succeed by trying again.
const isBusy = (error: SqlError.SqlError) => {
  const code = (error.reason.cause as { readonly code?: unknown } | undefined)?.code
  return code === "SQLITE_BUSY" || code === "SQLITE_BUSY_RECOVERY" || code === "SQLITE_BUSY_TIMEOUT"
}

const isCommit = (sql: string) => /^\s*(COMMIT|END)\b/i.test(sql)

// better-sqlite3 binds numbers, strings, bigints, buffers and null only.
const bindable = (value: unknown): unknown => {
  if (value === undefined) return null
  if (typeof value === "boolean") return value ? 1 : 0
  if (value instanceof Date) return value.toISOString()
  return value
}

const needsBinding = (value: unknown) => bindable(value) !== value

// Nearly every statement binds only strings, numbers and nulls: its parameters are then passed as they are, not
// copied (a flush of uptime counts binds tens of thousands every 5 s).
const bindableAll = (params: ReadonlyArray<unknown>): ReadonlyArray<unknown> =>
  params.some(needsBinding) ? params.map(bindable) : params

const busyTimeoutOf = (options: SqliteClientOptions) => Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))

const isMemory = (filename: string) => filename === ":memory:" || filename === ""

/**
 * Opens the database file: owner-only (it holds API key hashes and, later, node keys; SQLite gives the -wal and
 * -shm files the main file's mode), WAL so readers never wait for the writer, `synchronous = FULL`, a busy timeout
 * so a second process waits for a lock instead of failing at once, and foreign keys enforced.
 *
 * FULL: each commit is on disk before it is acknowledged. With NORMAL, WAL is only synced at checkpoints, and a power
 * loss could take back the newest commits after their callers were answered: a verdict an SSH gate already acted
 * on, a revoked API key that would work again. A commit costs more (0.36 ms against 0.04 ms on the development
 * VM's disk, single-row transactions; bench/README.md, "Auth requests over gRPC"), which the store's batching
 * of writes absorbs.
 */
const open = (options: SqliteClientOptions) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const { filename } = options
      if (options.readonly === true) {
        return yield* Effect.try({
          try: () => new Database(filename, { readonly: true, fileMustExist: true }),
          catch: (cause) => classify(cause, `cannot open ${filename}`, "open")
        })
      }
      if (!isMemory(filename)) {
        yield* Effect.tryPromise({
          try: () => fs.mkdir(path.dirname(filename), { recursive: true }),
          catch: (cause) => classify(cause, `cannot create the directory of ${filename}`, "open")
        })
      }
      const db = yield* Effect.try({
        try: () => new Database(filename),
        catch: (cause) => classify(cause, `cannot open ${filename}`, "open")
      })
      yield* Effect.try({
        try: () => {
          if (!isMemory(filename)) db.pragma("journal_mode = WAL")
          db.pragma(`busy_timeout = ${Math.min(busyTimeoutOf(options), BLOCKING_BUSY_TIMEOUT_MS)}`)
          db.pragma("synchronous = FULL")
          db.pragma("foreign_keys = ON")
        },
        // SQLite reads a file lazily: "file is not a database" surfaces here, at the first statement.
        catch: (cause) => classify(cause, `cannot use ${filename} as a SQLite database`, "open")
      }).pipe(Effect.tapError(() => Effect.sync(() => db.close())))
      if (!isMemory(filename)) {
        yield* Effect.tryPromise({
          try: () => fs.chmod(filename, 0o600),
          catch: (cause) => classify(cause, `cannot restrict the mode of ${filename}`, "open")
        })
      }
      return db
    }),
    (db) => Effect.sync(() => db.close())
  )

type Row = SqlConnection.Row

/** The one connection, as effect/sql sees it: every statement prepared once and kept in a small cache. */
const makeConnection = (
  db: BetterSqlite3.Database,
  cacheSize: number,
  busyTimeoutMs: number
): SqlConnection.Connection => {
  const cache = new Map<string, BetterSqlite3.Statement>()

  /**
   * Runs a statement again while another process holds the lock it needs (the sqlite3 shell in a transaction, a
   * backup tool), pausing without blocking the thread, until `busyTimeoutMs` has passed; then it fails with SQLite's
   * SQLITE_BUSY. SQLite says what may be tried again: a statement outside a transaction, and COMMIT. Inside one, a
   * statement that found the lock taken must fail so the transaction rolls back (transactions begin IMMEDIATE,
   * so they take the lock first, at BEGIN, which is outside one and so is retried here).
   */
  const patiently = <A>(sql: string, attempt: Effect.Effect<A, SqlError.SqlError>) =>
    Effect.catchIf(
      attempt,
      (error) => busyTimeoutMs > 0 && isBusy(error) && (!db.inTransaction || isCommit(sql)),
      (first) =>
        Effect.gen(function* () {
          const deadline = (yield* Clock.currentTimeMillis) + busyTimeoutMs
          let pause = 1
          let last = first
          while (true) {
            const now = yield* Clock.currentTimeMillis
            if (now >= deadline) return yield* Effect.fail(last)
            yield* Effect.sleep(Math.min(pause, deadline - now))
            pause = Math.min(pause * 2, MAX_BUSY_PAUSE_MS)
            const exit = yield* Effect.exit(attempt)
            if (Exit.isSuccess(exit)) return exit.value
            const error = Cause.findErrorOption(exit.cause)
            if (Option.isNone(error) || !isBusy(error.value) || (db.inTransaction && !isCommit(sql))) {
              return yield* Effect.failCause(exit.cause)
            }
            last = error.value
          }
        })
    )
  const prepare = (sql: string) =>
    Effect.try({
      try: () => {
        const cached = cache.get(sql)
        if (cached !== undefined) return cached
        const statement = db.prepare(sql)
        if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!)
        cache.set(sql, statement)
        return statement
      },
      catch: (cause) => classify(cause, "Failed to prepare statement", "prepare")
    })

  // Rows are plain objects (or arrays of values); a write reports nothing, or its changes when `raw`.
  const run = (statement: BetterSqlite3.Statement, params: ReadonlyArray<unknown>, raw: boolean, arrays = false) =>
    Effect.try({
      try: (): ReadonlyArray<Row> => {
        const values = bindableAll(params)
        if (statement.reader) {
          return (arrays ? statement.raw(true).all(...values) : statement.raw(false).all(...values)) as Array<Row>
        }
        const result = statement.run(...values)
        return raw ? (result as unknown as ReadonlyArray<Row>) : []
      },
      catch: (cause) => classify(cause, "Failed to execute statement", "execute")
    })

  const values = (statement: BetterSqlite3.Statement, params: ReadonlyArray<unknown>) =>
    run(statement, params, false, true) as unknown as Effect.Effect<
      ReadonlyArray<ReadonlyArray<unknown>>,
      SqlError.SqlError
    >

  const execute = (
    sql: string,
    params: ReadonlyArray<unknown>,
    transformRows?: <A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>
  ) =>
    Effect.flatMap(prepare(sql), (statement) => {
      const rows = run(statement, params, false)
      return transformRows === undefined ? rows : Effect.map(rows, transformRows)
    })

  const unprepared = (sql: string) =>
    Effect.try({
      try: () => db.prepare(sql),
      catch: (cause) => classify(cause, "Failed to prepare statement", "prepare")
    })

  return {
    execute: (sql, params, transformRows) => patiently(sql, execute(sql, params, transformRows)),
    executeRaw: (sql, params) =>
      patiently(
        sql,
        Effect.flatMap(prepare(sql), (statement) => run(statement, params, true))
      ),
    // Rows are read at once: SQLite is in-process and the connection is held while a stream is open anyway.
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(
        Effect.map(patiently(sql, execute(sql, params, transformRows)), (rows) => Stream.fromIterable(rows))
      ),
    executeValues: (sql, params) =>
      patiently(
        sql,
        Effect.flatMap(prepare(sql), (statement) => values(statement, params))
      ),
    executeValuesUnprepared: (sql, params) =>
      patiently(
        sql,
        Effect.flatMap(unprepared(sql), (statement) => values(statement, params))
      ),
    executeUnprepared: (sql, params, transformRows) =>
      patiently(
        sql,
        Effect.flatMap(unprepared(sql), (statement) => {
          const rows = run(statement, params ?? [], false)
          return transformRows === undefined ? rows : Effect.map(rows, transformRows)
        })
      )
  }
}

/**
 * A second connection to the same file for reads outside a transaction: in WAL mode a reader sees the last commit
 * and never waits for the writer, so a request that only reads goes on while the writer's connection is busy (a
 * transaction of this server, or a write waiting up to the busy timeout for another process's lock). It refuses
 * to write (`query_only`), whatever is sent to it.
 */
const openReader = (filename: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      const db = yield* Effect.try({
        try: () => new Database(filename, { fileMustExist: true }),
        catch: (cause) => classify(cause, `cannot open ${filename} for reading`, "open")
      })
      yield* Effect.try({
        try: () => {
          db.pragma(`busy_timeout = ${BLOCKING_BUSY_TIMEOUT_MS}`)
          db.pragma("query_only = ON")
        },
        catch: (cause) => classify(cause, `cannot open ${filename} for reading`, "open")
      }).pipe(Effect.tapError(() => Effect.sync(() => db.close())))
      return db
    }),
    (db) => Effect.sync(() => db.close())
  )

// Only a plain query may go to the reader: one SQLite itself calls read-only (a WITH may end in an INSERT). PRAGMAs
// stay on the writer even when they only read, since many set or report state of the connection they run on.
const mayRead = (sql: string) => /^\s*(SELECT|WITH)\b/i.test(sql)

/**
 * The connection statements outside a transaction are lent: plain queries run on the reader at once, everything
 * else waits for the writer (`onWriter`), as before. A query the reader cannot even prepare goes to the writer too,
 * which answers with its own error.
 */
const splitConnection = (
  reader: SqlConnection.Connection,
  isPlainRead: (sql: string) => Effect.Effect<boolean>,
  onWriter: SqlConnection.Borrower
): SqlConnection.Connection => {
  const either = <A, E>(sql: string, onReader: () => Effect.Effect<A, E>, writing: () => Effect.Effect<A, E>) =>
    Effect.flatMap(isPlainRead(sql), (plain) => (plain ? onReader() : writing()))
  return {
    execute: (sql, params, transformRows) =>
      either(
        sql,
        () => reader.execute(sql, params, transformRows),
        () => onWriter((writer) => writer.execute(sql, params, transformRows))
      ),
    executeValues: (sql, params) =>
      either(
        sql,
        () => reader.executeValues(sql, params),
        () => onWriter((writer) => writer.executeValues(sql, params))
      ),
    executeStream: (sql, params, transformRows) =>
      Stream.unwrap(
        either(
          sql,
          () => Effect.succeed(reader.executeStream(sql, params, transformRows)),
          () => onWriter((writer) => Effect.succeed(writer.executeStream(sql, params, transformRows)))
        )
      ),
    executeRaw: (sql, params) => onWriter((writer) => writer.executeRaw(sql, params)),
    executeUnprepared: (sql, params, transformRows) =>
      onWriter((writer) => writer.executeUnprepared(sql, params, transformRows)),
    executeValuesUnprepared: (sql, params) => onWriter((writer) => writer.executeValuesUnprepared(sql, params))
  }
}

/**
 * Whether SQLite calls a statement read-only, asked of the reader's connection; remembered for the last
 * `cacheSize` statements, since the same few run again and again. One it cannot prepare is not.
 */
const readOnlyStatements = (db: BetterSqlite3.Database, cacheSize: number) => {
  const known = new Map<string, boolean>()
  return (sql: string): Effect.Effect<boolean> => {
    if (!mayRead(sql)) return Effect.succeed(false)
    const cached = known.get(sql)
    if (cached !== undefined) return Effect.succeed(cached)
    return Effect.try({ try: () => db.prepare(sql).readonly, catch: () => false }).pipe(
      Effect.orElseSucceed(() => false),
      Effect.tap((readonly) =>
        Effect.sync(() => {
          if (known.size >= cacheSize) known.delete(known.keys().next().value!)
          known.set(sql, readonly)
        })
      )
    )
  }
}

/**
 * An effect/sql `SqlClient` over better-sqlite3: one writing connection shared through a semaphore (SQLite has one
 * writer; a transaction holds the connection until it ends, and nested transactions are savepoints), and, for a
 * file, a reading one that plain queries outside a transaction use without waiting for it. Errors are classified
 * into `SqlError` reasons (unique and constraint violations, a lock held too long, ...). The database closes with
 * the scope.
 */
export const make = (
  options: SqliteClientOptions
): Effect.Effect<SqlClient.SqlClient, SqlError.SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function* () {
    const db = yield* open(options)
    const cacheSize = options.statementCacheSize ?? 200
    const connection = makeConnection(db, cacheSize, busyTimeoutOf(options))
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connection),
      semaphore: yield* Semaphore.make(1),
      isTransaction: () => db.inTransaction
    })
    // A database in memory is private to its connection, and one opened read-only has no writer to wait for.
    const borrower =
      isMemory(options.filename) || options.readonly === true
        ? acquirers.borrower
        : yield* readingBeside(options.filename, cacheSize, busyTimeoutOf(options), acquirers.borrower)
    return yield* SqlClient.make({
      ...acquirers,
      borrower,
      compiler: Statement.makeCompilerSqlite(),
      // SQLite prepares BEGIN, COMMIT, ROLLBACK and savepoints like any statement: kept in the statement cache
      // rather than parsed again for every transaction (two prepares a transaction, ~5 us each).
      prepareTransactionControls: true,
      // The write lock is taken at BEGIN, where waiting for another process's lock can be retried, rather than at a
      // transaction's first write, where SQLite says it cannot (see `patiently`). In WAL mode the lock keeps no
      // reader out, so the reading connection goes on meanwhile.
      beginTransaction: "BEGIN IMMEDIATE",
      driver: "sqlite-better",
      spanAttributes: [["db.system.name", "sqlite"]]
    })
  })

/** Opens the reading connection and lends statements outside a transaction a connection split between the two. */
const readingBeside = (
  filename: string,
  cacheSize: number,
  busyTimeoutMs: number,
  onWriter: SqlConnection.Borrower
): Effect.Effect<SqlConnection.Borrower, SqlError.SqlError, Scope.Scope> =>
  Effect.map(openReader(filename), (readerDb) => {
    const reader = makeConnection(readerDb, cacheSize, busyTimeoutMs)
    const split = splitConnection(reader, readOnlyStatements(readerDb, cacheSize), onWriter)
    return (f) => f(split)
  })

/** The client as a layer: `SqliteClient.layer({ filename: "data/gatehouse.db" })`. */
export const layer = (options: SqliteClientOptions): Layer.Layer<SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effect(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))
