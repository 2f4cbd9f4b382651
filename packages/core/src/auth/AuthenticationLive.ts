import { Effect, Layer, Redacted } from "effect"
import { Unauthenticated } from "../domain/CommonErrors.js"
import { ApiKeys } from "./ApiKeys.js"
import { Authentication, type Credential } from "./Authentication.js"
import { makeVerifiedKeyCache } from "./VerifiedKeyCache.js"

/** {@link Authentication} over the stored API keys. */
export const layer: Layer.Layer<Authentication, never, ApiKeys> = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    // Scripts send the same key on every request: verify it once a minute, not on each.
    const cache = makeVerifiedKeyCache({ ttlMs: 60_000, maxEntries: 1024 })
    return Authentication.of({
      authenticate: Effect.fn("Authentication.authenticate")(function* (credential: Credential) {
        const key = Redacted.value(credential.key)
        const principal = yield* cache.lookup(key, keys.verify(key))
        return principal ?? (yield* new Unauthenticated({ message: "missing or invalid API key" }))
      })
    })
  })
)
