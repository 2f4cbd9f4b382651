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
      // Every authenticated request passes here: chained, without a span of its own (see Authentication).
      bearer: (httpEffect, { credential }) =>
        Effect.flatMap(authentication.authenticate({ _tag: "ApiKey", key: credential }), (principal) =>
          Effect.provideService(httpEffect, CurrentPrincipal, principal)
        )
    })
  })
)
