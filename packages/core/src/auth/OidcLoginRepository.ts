import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as SqlClient from "effect/sql/SqlClient"

/** What an OIDC login sent to the provider must come back with; times are epoch milliseconds. */
export interface PendingOidcLogin {
  readonly state_sha256: string
  readonly nonce: string
  readonly code_verifier: string
  readonly return_to: string
  readonly created_at: number
  readonly expires_at: number
}

/** Pending OIDC sign-ins kept at most (each ~2 KB): a flood of starts from many addresses cannot fill the disk. */
export const MAX_PENDING_LOGINS = 10_000

/**
 * The `oidc_logins` table: logins on their way through the OpenID provider. Each is taken exactly once (a
 * replayed callback finds nothing), and expired ones are deleted when a new login starts.
 */
export class OidcLoginRepository extends Context.Service<
  OidcLoginRepository,
  {
    readonly insert: (login: PendingOidcLogin) => Effect.Effect<void>
    /** Removes and returns the login with this state hash if it has not expired at `now`. */
    readonly take: (stateSha256: string, now: number) => Effect.Effect<Option.Option<PendingOidcLogin>>
  }
>()("@gatehouse-edge/core/OidcLoginRepository") {
  /** The repository on the store's `SqlClient`, keeping at most `maxPending` pending logins. */
  static readonly layerWith = (maxPending: number): Layer.Layer<OidcLoginRepository, never, SqlClient.SqlClient> =>
    Layer.effect(
      OidcLoginRepository,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        return OidcLoginRepository.of({
          insert: Effect.fn("OidcLoginRepository.insert")(function* (login: PendingOidcLogin) {
            yield* sql`DELETE FROM oidc_logins WHERE expires_at <= ${login.created_at}`.pipe(Effect.orDie)
            // Anyone may start a sign-in: past the cap the oldest pending ones go, rather than the disk filling up.
            // The newest `maxPending - 1` stay, then this one joins them.
            yield* sql`DELETE FROM oidc_logins WHERE created_at < (
              SELECT created_at FROM oidc_logins ORDER BY created_at DESC LIMIT 1 OFFSET ${Math.max(0, maxPending - 2)}
            )`.pipe(Effect.orDie)
            yield* sql`INSERT INTO oidc_logins ${sql.insert({ ...login })}`.pipe(Effect.orDie)
          }),
          take: Effect.fn("OidcLoginRepository.take")(function* (stateSha256: string, now: number) {
            // DELETE ... RETURNING: of two callbacks racing with the same state, exactly one gets the login.
            const rows = yield* sql<Record<string, unknown>>`DELETE FROM oidc_logins WHERE state_sha256 = ${stateSha256}
            RETURNING *`.pipe(Effect.orDie)
            const row = rows[0]
            if (row === undefined || Number(row.expires_at) <= now) return Option.none()
            return Option.some({
              ...(row as unknown as PendingOidcLogin),
              created_at: Number(row.created_at),
              expires_at: Number(row.expires_at)
            })
          })
        })
      })
    )

  /** The repository on the store's `SqlClient`, with the default cap ({@link MAX_PENDING_LOGINS}). */
  static readonly layer: Layer.Layer<OidcLoginRepository, never, SqlClient.SqlClient> =
    OidcLoginRepository.layerWith(MAX_PENDING_LOGINS)
}
