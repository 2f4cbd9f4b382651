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
})
