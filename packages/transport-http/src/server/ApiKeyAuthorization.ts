import { ApiKeys, Unauthenticated } from "@gatehouse-edge/core"
import { Effect, Layer, Redacted } from "effect"
import { Authorization, CurrentPrincipal } from "../api/Security.js"

/** {@link Authorization} backed by {@link ApiKeys}: a valid bearer API key, or 401. */
export const layerApiKeyAuthorization = Layer.effect(
  Authorization,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    return Authorization.of({
      bearer: Effect.fn(function* (httpEffect, { credential }) {
        const principal = yield* keys.verify(Redacted.value(credential))
        if (principal === undefined) return yield* new Unauthenticated({ message: "missing or invalid API key" })
        return yield* Effect.provideService(httpEffect, CurrentPrincipal, principal)
      })
    })
  })
)
