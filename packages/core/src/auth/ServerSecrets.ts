import { randomBytes } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"

/**
 * Keys the server makes for itself (the session cookie signing key), kept in the store: they survive a restart
 * (sessions stay valid) and every replica of a shared PostgreSQL store uses the same ones.
 */
export class ServerSecrets extends Context.Service<
  ServerSecrets,
  {
    /** The secret of that name (32 random bytes), created on first use. */
    readonly get: (name: string) => Effect.Effect<Buffer>
  }
>()("@gatehouse-edge/core/ServerSecrets") {
  /** Secrets in the store's `server_secrets` table. */
  static readonly layer: Layer.Layer<ServerSecrets, never, SqlClient.SqlClient> = Layer.effect(
    ServerSecrets,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const read = (name: string) =>
        sql<{ value: string }>`SELECT value FROM server_secrets WHERE name = ${name}`.pipe(Effect.orDie)
      return ServerSecrets.of({
        get: Effect.fn("ServerSecrets.get")(function* (name: string) {
          const existing = yield* read(name)
          if (existing[0] !== undefined) return Buffer.from(existing[0].value, "base64")
          const now = yield* Clock.currentTimeMillis
          // Two replicas starting at once both insert; the first wins and both read it back.
          yield* sql`INSERT INTO server_secrets (name, value, created_at)
            VALUES (${name}, ${randomBytes(32).toString("base64")}, ${now})
            ON CONFLICT (name) DO NOTHING`.pipe(Effect.orDie)
          return Buffer.from((yield* read(name))[0]!.value, "base64")
        })
      })
    })
  )
}
