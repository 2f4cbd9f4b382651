import type { AuthRequestKind, AuthRequestState, RegisterMethod } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"

/** An auth request as stored; times are epoch milliseconds. */
export interface RequestRecord {
  readonly auth_id: string
  readonly kind: AuthRequestKind
  readonly state: AuthRequestState
  readonly created_at: number
  readonly expires_at: number
  readonly decided_at: number | null
  readonly decided_by: string | null
  readonly user_id: number | null
  readonly node_id: number | null
  readonly machine_key: string | null
  readonly node_key: string | null
  readonly hostname: string | null
  readonly src: string | null
  readonly dst: string | null
  readonly local_user: string | null
}

/**
 * Which requests to read: every present field filters (`decidedAfter` exclusive, epoch ms); `after` is the
 * position (`created_at`, `auth_id`) of the last request already read, newest first.
 */
export interface RequestQuery {
  readonly state?: AuthRequestState | undefined
  readonly kind?: AuthRequestKind | undefined
  readonly src?: string | undefined
  readonly dst?: string | undefined
  readonly local_user?: string | undefined
  readonly decidedAfter?: number | undefined
  readonly after?: { readonly created_at: number; readonly auth_id: string } | undefined
  readonly limit: number
}

/** A user as stored. */
export interface UserRecord {
  readonly id: number
  readonly name: string
  readonly display_name: string
  readonly email: string
  readonly created_at: number
}

/** A node as stored; `tags` is a JSON array. */
export interface NodeRecord {
  readonly id: number
  readonly machine_key: string
  readonly node_key: string
  readonly disco_key: string
  readonly hostname: string
  readonly given_name: string
  readonly user_id: number
  readonly ipv4: string | null
  readonly ipv6: string | null
  readonly register_method: RegisterMethod
  readonly tags: string
  readonly created_at: number
  readonly expiry: number | null
  readonly last_seen: number | null
}

// PostgreSQL returns BIGINT as text; SQLite as a number. Both become numbers here.
const num = (value: unknown): number => Number(value)
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value))

const toRequest = (row: Record<string, unknown>): RequestRecord =>
  ({
    ...row,
    created_at: num(row.created_at),
    expires_at: num(row.expires_at),
    decided_at: numOrNull(row.decided_at),
    user_id: numOrNull(row.user_id),
    node_id: numOrNull(row.node_id)
  }) as RequestRecord

const toUser = (row: Record<string, unknown>): UserRecord =>
  ({ ...row, id: num(row.id), created_at: num(row.created_at) }) as UserRecord

const toNode = (row: Record<string, unknown>): NodeRecord =>
  ({
    ...row,
    id: num(row.id),
    user_id: num(row.user_id),
    created_at: num(row.created_at),
    expiry: numOrNull(row.expiry),
    last_seen: numOrNull(row.last_seen)
  }) as NodeRecord

// The key of the advisory lock that serialises user and node changes across servers on one PostgreSQL store.
const DIRECTORY_LOCK = 0x67_68_64_69 // "ghdi"

/**
 * The `auth_requests`, `auth_users` and `auth_nodes` tables. State changes are conditional updates
 * (`... WHERE state = 'pending' RETURNING *`), so of two writers racing on one request exactly one wins, in
 * SQLite and in PostgreSQL alike. Every write runs inside the event bus's transaction (`Events.transaction`),
 * with the events that record it. Storage failures are defects: the store is local and its schema is ours.
 */
export class AuthRequestRepository extends Context.Service<
  AuthRequestRepository,
  {
    readonly insertRequest: (request: RequestRecord) => Effect.Effect<void>
    readonly findRequest: (authId: string) => Effect.Effect<Option.Option<RequestRecord>>
    /** Those of these requests that are no longer pending (any order). */
    readonly findSettled: (authIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<RequestRecord>>
    /** At most `limit` requests, newest first (`created_at`, then `auth_id`, descending). */
    readonly listRequests: (query: RequestQuery) => Effect.Effect<ReadonlyArray<RequestRecord>>
    /** Moves a pending, unexpired request to `to`; none when it was not pending (or had expired) at `at`. */
    readonly decide: (decision: {
      readonly authId: string
      readonly to: "approved" | "rejected" | "registered"
      readonly at: number
      readonly by: string
      readonly userId?: number
      readonly nodeId?: number
    }) => Effect.Effect<Option.Option<RequestRecord>>
    /** Marks every pending request whose time ran out at `now` as expired; the ones it changed. */
    readonly expireDue: (now: number) => Effect.Effect<ReadonlyArray<RequestRecord>>
    /**
     * Expires the `count` oldest unexpired pending requests of `kind`; the ones it changed. One whose time ran out is
     * the sweeper's to expire (reason `ttl`): taking it here would free no room and name the wrong reason.
     */
    readonly expireOldest: (
      kind: AuthRequestKind,
      count: number,
      now: number
    ) => Effect.Effect<ReadonlyArray<RequestRecord>>
    /** How many requests of `kind` are pending and unexpired at `now`. */
    readonly countPending: (kind: AuthRequestKind, now: number) => Effect.Effect<number>
    /** When the next pending request expires. */
    readonly nextExpiry: Effect.Effect<Option.Option<number>>
    /** Deletes final requests decided (or expired) before `cutoff`; how many. */
    readonly deleteHistoryBefore: (cutoff: number) => Effect.Effect<number>
    /** Deletes the requests that expired (ended without a verdict) before `cutoff`; how many. */
    readonly deleteExpiredBefore: (cutoff: number) => Effect.Effect<number>
    /** Deletes the oldest expired requests beyond the newest `keep`; how many. */
    readonly deleteExpiredBeyond: (keep: number) => Effect.Effect<number>
    /** When the request that expired first of those kept expired. */
    readonly oldestExpired: Effect.Effect<Option.Option<number>>
    /**
     * Holds the directory of users and nodes for the rest of the transaction: servers sharing a PostgreSQL store
     * would otherwise compute the same next id, or both find a user name free, and one of them fail on the unique
     * key (a 500). A transaction-scoped advisory lock there; nothing on SQLite, whose one writer already serialises.
     */
    readonly lockDirectory: Effect.Effect<void>
    readonly insertUser: (user: Omit<UserRecord, "id">) => Effect.Effect<UserRecord>
    readonly findUser: (name: string) => Effect.Effect<Option.Option<UserRecord>>
    readonly usersById: (ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyMap<number, UserRecord>>
    readonly listUsers: Effect.Effect<ReadonlyArray<UserRecord>>
    readonly insertNode: (node: Omit<NodeRecord, "id">) => Effect.Effect<NodeRecord>
    /** Re-authorises a node: new keys, host name and user; same id and addresses. */
    readonly updateNode: (node: NodeRecord) => Effect.Effect<void>
    readonly findNodeByMachineKey: (machineKey: string) => Effect.Effect<Option.Option<NodeRecord>>
    readonly nodesById: (ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyMap<number, NodeRecord>>
    /** Oldest first; of one user when given. */
    readonly listNodes: (userId?: number) => Effect.Effect<ReadonlyArray<NodeRecord>>
    /** Every address and given name in use. */
    readonly nodeNamesAndAddresses: Effect.Effect<{
      readonly ipv4: ReadonlyArray<string>
      readonly ipv6: ReadonlyArray<string>
      readonly givenNames: ReadonlyArray<string>
    }>
  }
>()("@gatehouse-edge/core/AuthRequestRepository") {
  /** The repository on the store's `SqlClient`. */
  static readonly layer: Layer.Layer<AuthRequestRepository, never, SqlClient.SqlClient> = Layer.effect(
    AuthRequestRepository,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = <A>(
        statement: Effect.Effect<ReadonlyArray<Record<string, unknown>>, unknown>,
        f: (r: Record<string, unknown>) => A
      ) =>
        statement.pipe(
          Effect.map((list) => list.map(f)),
          Effect.orDie
        )
      const byIds = <A extends { readonly id: number }>(
        table: "auth_users" | "auth_nodes",
        f: (r: Record<string, unknown>) => A
      ) =>
        Effect.fn(`AuthRequestRepository.${table}ById`)(function* (ids: ReadonlyArray<number>) {
          const unique = [...new Set(ids)]
          if (unique.length === 0) return new Map<number, A>()
          const found = yield* rows(sql`SELECT * FROM ${sql(table)} WHERE ${sql.in("id", unique)}`, f)
          return new Map(found.map((r) => [r.id, r] as const))
        })
      const nextId = (table: "auth_users" | "auth_nodes") =>
        sql<{ next: unknown }>`SELECT COALESCE(MAX(id), 0) + 1 AS next FROM ${sql(table)}`.pipe(
          Effect.map((r) => num(r[0]?.next)),
          Effect.orDie
        )

      return AuthRequestRepository.of({
        // insertRequest, findRequest, decide, countPending and expireOldest run in the writer's batches, on every
        // create and verdict of a busy server (bench/auth-requests.ts): chained rather than `Effect.fn`, whose
        // span and generator cost about as much as the statement; each statement keeps effect/sql's own span.
        insertRequest: (request: RequestRecord) =>
          Effect.orDie(Effect.asVoid(sql`INSERT INTO auth_requests ${sql.insert({ ...request })}`)),
        findSettled: Effect.fn("AuthRequestRepository.findSettled")(function* (authIds: ReadonlyArray<string>) {
          const settled: Array<RequestRecord> = []
          // In slices: a statement's parameters are bounded (SQLite: 32,766; PostgreSQL: 65,535).
          for (let i = 0; i < authIds.length; i += 1000) {
            const slice = authIds.slice(i, i + 1000)
            const found = yield* rows(
              sql`SELECT * FROM auth_requests WHERE ${sql.in("auth_id", slice)} AND state <> 'pending'`,
              toRequest
            )
            settled.push(...found)
          }
          return settled
        }),
        findRequest: (authId: string) =>
          Effect.map(rows(sql`SELECT * FROM auth_requests WHERE auth_id = ${authId}`, toRequest), (found) =>
            Option.fromNullishOr(found[0])
          ),
        listRequests: Effect.fn("AuthRequestRepository.listRequests")(function* (query: RequestQuery) {
          const equal = (column: string, value: string | undefined) =>
            value === undefined ? [] : [sql`${sql(column)} = ${value}`]
          const clauses = [
            ...equal("state", query.state),
            ...equal("kind", query.kind),
            ...equal("src", query.src),
            ...equal("dst", query.dst),
            ...equal("local_user", query.local_user),
            ...(query.decidedAfter === undefined ? [] : [sql`decided_at > ${query.decidedAfter}`]),
            // Keyset paging: the rows after the last one read, in the list's order. A row value, which both
            // SQLite and PostgreSQL compare column by column and serve from the (created_at, auth_id) index.
            ...(query.after === undefined
              ? []
              : [sql`(created_at, auth_id) < (${query.after.created_at}, ${query.after.auth_id})`])
          ]
          const where = clauses.length === 0 ? sql`` : sql`WHERE ${sql.and(clauses)}`
          return yield* rows(
            sql`SELECT * FROM auth_requests ${where} ORDER BY created_at DESC, auth_id DESC LIMIT ${query.limit}`,
            toRequest
          )
        }),
        decide: (decision) =>
          Effect.map(
            rows(
              sql`UPDATE auth_requests
              SET state = ${decision.to}, decided_at = ${decision.at}, decided_by = ${decision.by},
                  user_id = ${decision.userId ?? null}, node_id = ${decision.nodeId ?? null}
              WHERE auth_id = ${decision.authId} AND state = 'pending' AND expires_at > ${decision.at}
              RETURNING *`,
              toRequest
            ),
            (changed) => Option.fromNullishOr(changed[0])
          ),
        expireDue: Effect.fn("AuthRequestRepository.expireDue")(function* (now: number) {
          return yield* rows(
            sql`UPDATE auth_requests SET state = 'expired', decided_at = expires_at
              WHERE state = 'pending' AND expires_at <= ${now} RETURNING *`,
            toRequest
          )
        }),
        // Both read the pending requests of one kind, a few per kind whatever the history holds, from the partial
        // indexes of AuthRequestsPendingMigration: `state = 'pending'` stays a literal so both dialects match them.
        expireOldest: (kind: AuthRequestKind, count: number, now: number) =>
          rows(
            sql`UPDATE auth_requests SET state = 'expired', decided_at = ${now}
              WHERE auth_id IN (
                SELECT auth_id FROM auth_requests WHERE state = 'pending' AND kind = ${kind} AND expires_at > ${now}
                ORDER BY created_at, auth_id LIMIT ${count}
              ) RETURNING *`,
            toRequest
          ),
        countPending: (kind: AuthRequestKind, now: number) =>
          Effect.map(
            rows(
              sql`SELECT count(*) AS n FROM auth_requests
                WHERE state = 'pending' AND kind = ${kind} AND expires_at > ${now}`,
              (r) => num(r.n)
            ),
            (found) => found[0] ?? 0
          ),
        nextExpiry: rows(sql`SELECT MIN(expires_at) AS at FROM auth_requests WHERE state = 'pending'`, (r) =>
          numOrNull(r.at)
        ).pipe(
          Effect.map((found) => Option.fromNullishOr(found[0])),
          Effect.withSpan("AuthRequestRepository.nextExpiry")
        ),
        deleteHistoryBefore: Effect.fn("AuthRequestRepository.deleteHistoryBefore")(function* (cutoff: number) {
          const deleted = yield* rows(
            sql`DELETE FROM auth_requests WHERE state <> 'pending' AND decided_at < ${cutoff} RETURNING auth_id`,
            (r) => r.auth_id
          )
          return deleted.length
        }),
        // The three read the expired requests from their partial index (AuthRequestsExpiredMigration), in the order
        // they expired: `state = 'expired'` stays a literal so both dialects match it.
        deleteExpiredBefore: Effect.fn("AuthRequestRepository.deleteExpiredBefore")(function* (cutoff: number) {
          const deleted = yield* rows(
            sql`DELETE FROM auth_requests WHERE state = 'expired' AND decided_at < ${cutoff} RETURNING auth_id`,
            (r) => r.auth_id
          )
          return deleted.length
        }),
        deleteExpiredBeyond: Effect.fn("AuthRequestRepository.deleteExpiredBeyond")(function* (keep: number) {
          const [kept] = yield* rows(sql`SELECT count(*) AS n FROM auth_requests WHERE state = 'expired'`, (r) =>
            num(r.n)
          )
          const excess = (kept ?? 0) - keep
          if (excess <= 0) return 0
          const deleted = yield* rows(
            sql`DELETE FROM auth_requests WHERE auth_id IN (
                SELECT auth_id FROM auth_requests WHERE state = 'expired' ORDER BY decided_at, auth_id LIMIT ${excess}
              ) RETURNING auth_id`,
            (r) => r.auth_id
          )
          return deleted.length
        }),
        oldestExpired: rows(sql`SELECT MIN(decided_at) AS at FROM auth_requests WHERE state = 'expired'`, (r) =>
          numOrNull(r.at)
        ).pipe(
          Effect.map((found) => Option.fromNullishOr(found[0])),
          Effect.withSpan("AuthRequestRepository.oldestExpired")
        ),
        lockDirectory: sql
          .onDialectOrElse({
            pg: () => sql`SELECT pg_advisory_xact_lock(${DIRECTORY_LOCK})`,
            orElse: () => Effect.succeed([])
          })
          .pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("AuthRequestRepository.lockDirectory")),
        insertUser: Effect.fn("AuthRequestRepository.insertUser")(function* (user: Omit<UserRecord, "id">) {
          const record: UserRecord = { id: yield* nextId("auth_users"), ...user }
          yield* sql`INSERT INTO auth_users ${sql.insert({ ...record })}`.pipe(Effect.orDie)
          return record
        }),
        findUser: Effect.fn("AuthRequestRepository.findUser")(function* (name: string) {
          const found = yield* rows(sql`SELECT * FROM auth_users WHERE name = ${name}`, toUser)
          return Option.fromNullishOr(found[0])
        }),
        usersById: byIds("auth_users", toUser),
        listUsers: rows(sql`SELECT * FROM auth_users ORDER BY id`, toUser).pipe(
          Effect.withSpan("AuthRequestRepository.listUsers")
        ),
        insertNode: Effect.fn("AuthRequestRepository.insertNode")(function* (node: Omit<NodeRecord, "id">) {
          const record: NodeRecord = { id: yield* nextId("auth_nodes"), ...node }
          yield* sql`INSERT INTO auth_nodes ${sql.insert({ ...record })}`.pipe(Effect.orDie)
          return record
        }),
        updateNode: Effect.fn("AuthRequestRepository.updateNode")(function* (node: NodeRecord) {
          yield* sql`UPDATE auth_nodes SET node_key = ${node.node_key}, hostname = ${node.hostname},
            user_id = ${node.user_id}, expiry = ${node.expiry}, register_method = ${node.register_method}
            WHERE id = ${node.id}`.pipe(Effect.orDie)
        }),
        findNodeByMachineKey: Effect.fn("AuthRequestRepository.findNodeByMachineKey")(function* (machineKey: string) {
          const found = yield* rows(sql`SELECT * FROM auth_nodes WHERE machine_key = ${machineKey}`, toNode)
          return Option.fromNullishOr(found[0])
        }),
        nodesById: byIds("auth_nodes", toNode),
        listNodes: Effect.fn("AuthRequestRepository.listNodes")(function* (userId?: number) {
          return yield* rows(
            userId === undefined
              ? sql`SELECT * FROM auth_nodes ORDER BY id`
              : sql`SELECT * FROM auth_nodes WHERE user_id = ${userId} ORDER BY id`,
            toNode
          )
        }),
        nodeNamesAndAddresses: rows(sql`SELECT ipv4, ipv6, given_name FROM auth_nodes`, (r) => r).pipe(
          Effect.map((found) => ({
            ipv4: found.flatMap((r) => (typeof r.ipv4 === "string" ? [r.ipv4] : [])),
            ipv6: found.flatMap((r) => (typeof r.ipv6 === "string" ? [r.ipv6] : [])),
            givenNames: found.map((r) => String(r.given_name))
          })),
          Effect.withSpan("AuthRequestRepository.nodeNamesAndAddresses")
        )
      })
    })
  )
}
