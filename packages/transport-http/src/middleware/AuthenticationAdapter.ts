import { Authentication, CurrentPrincipal } from "@gatehouse-edge/core/services"
import { Effect, Layer } from "effect"
import { Authorization } from "../api/Security.js"

/**
 * {@link Authorization} as an adapter over the core's `Authentication`: it hands the bearer credential over and
 * provides the principal it gets back to the handler; deciding who the caller is happens in core, the same way
 * for every transport.
 */
export const layerAuthentication = Layer.effect(
  Authorization,
  Effect.gen(function* () {
    const authentication = yield* Authentication
    return Authorization.of({
      bearer: Effect.fn("Authorization.bearer")(function* (httpEffect, { credential }) {
        const principal = yield* authentication.authenticate({ _tag: "ApiKey", key: credential })
        return yield* Effect.provideService(httpEffect, CurrentPrincipal, principal)
      })
    })
  })
)
