import { GatehouseApi } from "@gatehouse-edge/contract/api"
import { ApiKeys, CurrentPrincipal, Sessions } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"

/** Handlers of the `access` group: the caller, API keys and sessions; changes are recorded as the caller. */
export const AccessHandlers = HttpApiBuilder.group(GatehouseApi, "access", (handlers) =>
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const sessions = yield* Sessions
    const caller = Effect.gen(function* () {
      return (yield* CurrentPrincipal).subject
    })
    return handlers
      .handle("whoami", () =>
        Effect.gen(function* () {
          return yield* CurrentPrincipal
        })
      )
      .handle("listApiKeys", () => keys.list)
      .handle("createApiKey", ({ payload }) => Effect.flatMap(caller, (by) => keys.create(payload, by)))
      .handle("revokeApiKey", ({ params }) => Effect.flatMap(caller, (by) => keys.revoke(params.name, by)))
      .handle("listSessions", () => sessions.list)
      .handle("revokeSession", ({ params }) => Effect.flatMap(caller, (by) => sessions.revoke(params.id, by)))
  })
)
