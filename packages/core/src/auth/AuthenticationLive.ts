import { Effect, Layer, Redacted } from "effect"
import { Unauthenticated } from "../domain/CommonErrors.js"
import { ApiKeys } from "./ApiKeys.js"
import { Authentication, type Credential } from "./Authentication.js"

/** {@link Authentication} over the stored API keys. */
export const layer: Layer.Layer<Authentication, never, ApiKeys> = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    return Authentication.of({
      authenticate: Effect.fn("Authentication.authenticate")(function* (credential: Credential) {
        const principal = yield* keys.verify(Redacted.value(credential.key))
        return principal ?? (yield* new Unauthenticated({ message: "missing or invalid API key" }))
      })
    })
  })
)
