import type { Scope } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlError from "effect/sql/SqlError"

/** An API key as stored: never the key itself, only its public prefix (to find it) and the SHA-256 of the key. */
export interface StoredApiKey {
  readonly id: string
  readonly name: string
  readonly prefix: string
  /** Hex SHA-256 of the whole key. */
  readonly sha256: string
  readonly roles: ReadonlyArray<string>
  /** What the key may do (checked by every endpoint and RPC). */
  readonly scopes: ReadonlyArray<Scope>
  /** RFC 3339 times. */
  readonly created_at: string
  readonly expires_at: string | null
  readonly last_used_at: string | null
  readonly revoked_at: string | null
}

/** A key with this name or prefix exists already (names are unique among keys that are not revoked). */
export class ApiKeyConflict extends Data.TaggedError("ApiKeyConflict")<{ readonly name: string }> {
  override get message() {
    return `an API key named "${this.name}" (or with its prefix) exists already`
  }
}

interface Row extends Omit<StoredApiKey, "roles" | "scopes"> {
  readonly roles: string
  readonly scopes: string
}

const fromRow = (row: Row): StoredApiKey => ({
  ...row,
  roles: JSON.parse(row.roles) as ReadonlyArray<string>,
  scopes: JSON.parse(row.scopes) as ReadonlyArray<Scope>
})

const columns = "id, name, prefix, sha256, roles, scopes, created_at, expires_at, last_used_at, revoked_at"

/**
 * The `api_keys` table, in SQL that SQLite and PostgreSQL both accept. A duplicate name or prefix is an
 * {@link ApiKeyConflict}; any other storage failure is a defect.
 */
export class ApiKeyRepository extends Context.Service<
  ApiKeyRepository,
  {
    readonly insert: (key: StoredApiKey) => Effect.Effect<void, ApiKeyConflict>
    /** The key with this prefix, revoked or not. */
    readonly findByPrefix: (prefix: string) => Effect.Effect<Option.Option<StoredApiKey>>
    /** Every key, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<StoredApiKey>>
    /** Records that the key was used at `at` (RFC 3339). */
    readonly touch: (id: string, at: string) => Effect.Effect<void>
    /** Revokes the active key of that name, in one statement; the key it revoked, if there was one. */
    readonly revoke: (name: string, at: string) => Effect.Effect<Option.Option<StoredApiKey>>
  }
>()("@gatehouse-edge/core/ApiKeyRepository") {
  /** The repository on the store's `SqlClient`. */
  static readonly layer: Layer.Layer<ApiKeyRepository, never, SqlClient.SqlClient> = Layer.effect(
    ApiKeyRepository,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const isConflict = (error: SqlError.SqlError) =>
        error.reason instanceof SqlError.UniqueViolation || error.reason instanceof SqlError.ConstraintError

      return ApiKeyRepository.of({
        insert: Effect.fn("ApiKeyRepository.insert")(function* (key: StoredApiKey) {
          yield* sql`INSERT INTO api_keys ${sql.insert({ ...key, roles: JSON.stringify(key.roles), scopes: JSON.stringify(key.scopes) })}`.pipe(
            Effect.catchIf(isConflict, () => Effect.fail(new ApiKeyConflict({ name: key.name }))),
            Effect.catch((error) => (error instanceof ApiKeyConflict ? Effect.fail(error) : Effect.die(error)))
          )
        }),
        findByPrefix: Effect.fn("ApiKeyRepository.findByPrefix")(function* (prefix: string) {
          const rows = yield* sql<Row>`SELECT ${sql.literal(columns)} FROM api_keys WHERE prefix = ${prefix}`.pipe(
            Effect.orDie
          )
          return Option.map(Option.fromNullishOr(rows[0]), fromRow)
        }),
        list: sql<Row>`SELECT ${sql.literal(columns)} FROM api_keys ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(fromRow)),
          Effect.orDie,
          Effect.withSpan("ApiKeyRepository.list")
        ),
        touch: Effect.fn("ApiKeyRepository.touch")(function* (id: string, at: string) {
          yield* sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id}`.pipe(Effect.orDie)
        }),
        revoke: Effect.fn("ApiKeyRepository.revoke")(function* (name: string, at: string) {
          // One statement that says what it changed: two revocations at once cannot both find the key.
          const rows = yield* sql<Row>`UPDATE api_keys SET revoked_at = ${at}
            WHERE name = ${name} AND revoked_at IS NULL
            RETURNING ${sql.literal(columns)}`.pipe(Effect.orDie)
          return Option.map(Option.fromNullishOr(rows[0]), fromRow)
        })
      })
    })
  )
}
