import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type GeneratedApiKey, generateApiKey } from "./ApiKeyFormat.js"
import type { ApiKeyRepository } from "./ApiKeyRepository.js"

// More than enough: with 8 hex characters a prefix is taken about once in 4 million draws per thousand keys.
const maxDraws = 8

/**
 * A new API key whose prefix no key in `repository` has, revoked ones included (prefixes stay unique: a key is found by
 * its prefix). Drawn again on a collision, which the store would otherwise refuse as a duplicate, a refusal the
 * user could do nothing about. `generate` is the source of keys, replaced only to make collisions happen in tests.
 */
export const generateUnusedApiKey = Effect.fnUntraced(function* (
  repository: Pick<ApiKeyRepository["Service"], "findByPrefix">,
  generate: () => GeneratedApiKey = generateApiKey
): Effect.fn.Return<GeneratedApiKey> {
  for (let draw = 1; ; draw++) {
    const fresh = generate()
    if (Option.isNone(yield* repository.findByPrefix(fresh.prefix))) return fresh
    if (draw === maxDraws) return yield* Effect.die(new Error(`no unused API key prefix in ${maxDraws} draws`))
  }
})
