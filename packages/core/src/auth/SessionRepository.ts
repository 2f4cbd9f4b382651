import type { AuthMethod, Role } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"

/** A session as stored; times are epoch milliseconds. */
export interface SessionRecord {
  readonly id: string
  readonly token_sha256: string
  readonly subject: string
  readonly method: AuthMethod
  readonly roles: ReadonlyArray<Role>
  readonly address: string
  readonly user_agent: string
  readonly created_at: number
  readonly expires_at: number
  readonly renewed_at: number
  readonly revoked_at: number | null
  /**
   * A password session: the keyed fingerprint of the password hash it was signed in with; `null` for one stored
   * before fingerprints were (it takes the hash it is first judged against, see `adoptPasswordFingerprint`).
   */
  readonly password_fingerprint: string | null
  /** An OpenID Connect session: the claims it was admitted on; `null` for one stored before they were. */
  readonly oidc_claims: Readonly<Record<string, unknown>> | null
}

const num = (value: unknown): number => Number(value)

const jsonOrNull = (value: unknown): Readonly<Record<string, unknown>> | null =>
  value === null || value === undefined ? null : (JSON.parse(String(value)) as Readonly<Record<string, unknown>>)

// PostgreSQL returns BIGINT as text, SQLite as a number; roles and claims are JSON.
const fromRow = (row: Record<string, unknown>): SessionRecord =>
  ({
    ...row,
    roles: JSON.parse(String(row.roles)) as ReadonlyArray<Role>,
    password_fingerprint: row.password_fingerprint ?? null,
    oidc_claims: jsonOrNull(row.oidc_claims),
    created_at: num(row.created_at),
    expires_at: num(row.expires_at),
    renewed_at: num(row.renewed_at),
    revoked_at: row.revoked_at === null || row.revoked_at === undefined ? null : num(row.revoked_at)
  }) as SessionRecord

/**
 * The `sessions` table, in SQL that SQLite and PostgreSQL both accept. Storage failures are defects: a session
 * check that cannot read the store answers 500, never "signed in".
 */
export class SessionRepository extends Context.Service<
  SessionRepository,
  {
    readonly insert: (session: SessionRecord) => Effect.Effect<void>
    /** The session whose token hashes to this, revoked or expired or not. */
    readonly findByToken: (tokenSha256: string) => Effect.Effect<Option.Option<SessionRecord>>
    /** The session with this public id, revoked or expired or not. */
    readonly findById: (id: string) => Effect.Effect<Option.Option<SessionRecord>>
    /** Sessions neither revoked nor expired at `now`, newest first. */
    readonly listActive: (now: number) => Effect.Effect<ReadonlyArray<SessionRecord>>
    /** Moves the expiry of an active session (sliding renewal). */
    readonly renew: (id: string, renewedAt: number, expiresAt: number) => Effect.Effect<void>
    /**
     * Records the fingerprint of a session stored without one (from before they were kept); a session that has
     * one keeps it.
     */
    readonly adoptPasswordFingerprint: (id: string, fingerprint: string) => Effect.Effect<void>
    /** Revokes the session if it is active; the record as it was, if it was. */
    readonly revoke: (id: string, at: number) => Effect.Effect<Option.Option<SessionRecord>>
    /** Deletes sessions that ended (expired or revoked) before `before`. */
    readonly prune: (before: number) => Effect.Effect<void>
  }
>()("@gatehouse-edge/core/SessionRepository") {
  /** The repository on the store's `SqlClient`. */
  static readonly layer: Layer.Layer<SessionRepository, never, SqlClient.SqlClient> = Layer.effect(
    SessionRepository,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      return SessionRepository.of({
        insert: Effect.fn("SessionRepository.insert")(function* (session: SessionRecord) {
          const row = {
            ...session,
            roles: JSON.stringify(session.roles),
            oidc_claims: session.oidc_claims === null ? null : JSON.stringify(session.oidc_claims)
          }
          yield* sql`INSERT INTO sessions ${sql.insert(row)}`.pipe(Effect.orDie)
        }),
        findByToken: Effect.fn("SessionRepository.findByToken")(function* (tokenSha256: string) {
          const rows = yield* sql`SELECT * FROM sessions WHERE token_sha256 = ${tokenSha256}`.pipe(Effect.orDie)
          return Option.map(Option.fromNullishOr(rows[0]), fromRow)
        }),
        findById: Effect.fn("SessionRepository.findById")(function* (id: string) {
          const rows = yield* sql`SELECT * FROM sessions WHERE id = ${id}`.pipe(Effect.orDie)
          return Option.map(Option.fromNullishOr(rows[0]), fromRow)
        }),
        listActive: Effect.fn("SessionRepository.listActive")(function* (now: number) {
          const rows = yield* sql`SELECT * FROM sessions WHERE revoked_at IS NULL AND expires_at > ${now}
            ORDER BY created_at DESC, id`.pipe(Effect.orDie)
          return rows.map(fromRow)
        }),
        renew: Effect.fn("SessionRepository.renew")(function* (id: string, renewedAt: number, expiresAt: number) {
          yield* sql`UPDATE sessions SET renewed_at = ${renewedAt}, expires_at = ${expiresAt}
            WHERE id = ${id} AND revoked_at IS NULL`.pipe(Effect.orDie)
        }),
        adoptPasswordFingerprint: Effect.fn("SessionRepository.adoptPasswordFingerprint")(function* (
          id: string,
          fingerprint: string
        ) {
          yield* sql`UPDATE sessions SET password_fingerprint = ${fingerprint}
            WHERE id = ${id} AND password_fingerprint IS NULL`.pipe(Effect.orDie)
        }),
        revoke: Effect.fn("SessionRepository.revoke")(function* (id: string, at: number) {
          const rows = yield* sql`UPDATE sessions SET revoked_at = ${at}
            WHERE id = ${id} AND revoked_at IS NULL AND expires_at > ${at} RETURNING *`.pipe(Effect.orDie)
          return Option.map(Option.fromNullishOr(rows[0]), fromRow)
        }),
        prune: Effect.fn("SessionRepository.prune")(function* (before: number) {
          yield* sql`DELETE FROM sessions WHERE expires_at < ${before} OR revoked_at < ${before}`.pipe(Effect.orDie)
        })
      })
    })
  )
}
