import { GatehouseApi, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { MissingScope, missingScope, type NewAuthRequest, scopeToCreate } from "@gatehouse-edge/core/domain"
import { AuthRequests, CurrentPrincipal } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import { serveStream, streamOrPlain } from "../websocket/StreamEndpoint.js"

/** Handlers of the `authRequests` group: thin calls into the core port; verdicts are recorded as the caller. */
export const AuthRequestsHandlers = HttpApiBuilder.group(GatehouseApi, "authRequests", (handlers) =>
  Effect.gen(function* () {
    const requests = yield* AuthRequests
    const decidedBy = Effect.gen(function* () {
      return (yield* CurrentPrincipal).subject
    })
    // The endpoint asks for `auth_requests:create`; a registration needs write (see `scopeToCreate`).
    const create = (payload: NewAuthRequest) =>
      Effect.flatMap(CurrentPrincipal, (principal) => {
        const missing = missingScope(principal.scopes, scopeToCreate(payload.kind))
        return Effect.andThen(
          missing === undefined ? Effect.void : Effect.fail(new MissingScope({ scope: missing })),
          requests.create(payload, principal)
        )
      })
    return handlers
      .handle("register", ({ payload }) =>
        Effect.flatMap(decidedBy, (by) => requests.register(payload.auth_id, payload.user, by))
      )
      .handle("approve", ({ payload }) => Effect.flatMap(decidedBy, (by) => requests.approve(payload.auth_id, by)))
      .handle("reject", ({ payload }) => Effect.flatMap(decidedBy, (by) => requests.reject(payload.auth_id, by)))
      .handle("create", ({ payload }) => create(payload))
      .handle("list", ({ query }) => requests.list(query))
      .handle("get", ({ request, params }) =>
        streamOrPlain(
          StreamEndpoints.authRequest,
          request,
          // A malformed or unknown id is refused before the upgrade, with the typed 400/404 of a plain GET.
          (endpoint) =>
            Effect.andThen(requests.get(params.auth_id), serveStream(endpoint, requests.watch(params.auth_id))),
          requests.get(params.auth_id)
        )
      )
      .handle("listUsers", () => requests.listUsers)
      .handle("createUser", ({ payload }) => requests.createUser(payload))
      .handle("listNodes", ({ query }) => requests.listNodes(query.user))
  })
)
