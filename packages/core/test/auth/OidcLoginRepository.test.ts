import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { OidcLoginRepository, type PendingOidcLogin } from "../../src/auth/OidcLoginRepository.js"
import { StoreLive } from "../../src/index.js"

const pending = (n: number): PendingOidcLogin => ({
  state_sha256: `state-${n}`,
  nonce: `nonce-${n}`,
  code_verifier: `verifier-${n}`,
  return_to: "/",
  created_at: n,
  expires_at: n + 600_000
})

const stored = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(sql<{ state_sha256: string }>`SELECT state_sha256 FROM oidc_logins ORDER BY created_at`, (rows) =>
    rows.map((row) => row.state_sha256)
  )
)

describe("OidcLoginRepository", () => {
  it.effect("keeps at most its cap of pending logins: the oldest go first, and a kept one can still be taken", () =>
    Effect.gen(function* () {
      const logins = yield* OidcLoginRepository
      for (let n = 1; n <= 5; n++) yield* logins.insert(pending(n))
      assert.deepStrictEqual(yield* stored, ["state-3", "state-4", "state-5"])
      assert.isTrue(Option.isNone(yield* logins.take("state-1", 10)))
      assert.isTrue(Option.isSome(yield* logins.take("state-3", 10)))
    }).pipe(Effect.provide(OidcLoginRepository.layerWith(3).pipe(Layer.provideMerge(StoreLive.layerMemory))))
  )

  it.effect("finds the expired and the oldest logins through an index, not by scanning the table", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const planOf = (query: string) =>
        Effect.map(sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`), (rows) =>
          rows.map((row) => row.detail).join("; ")
        )
      const expired = yield* planOf("DELETE FROM oidc_logins WHERE expires_at <= 5")
      const oldest = yield* planOf("SELECT created_at FROM oidc_logins ORDER BY created_at DESC LIMIT 1 OFFSET 3")
      assert.include(expired, "USING INDEX oidc_logins_expires")
      assert.include(oldest, "INDEX oidc_logins_created")
    }).pipe(Effect.provide(StoreLive.layerMemory))
  )
})
