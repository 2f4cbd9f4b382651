import type { GatehouseApi } from "@gatehouse-edge/contract/api"
import type * as Effect from "effect/Effect"
import type * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiClient from "effect/http-api/HttpApiClient"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import type * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import type * as Schema from "effect/Schema"

type Groups = typeof GatehouseApi extends HttpApi.HttpApi<infer _Id, infer G> ? G : never

/** The name of a group of the Gatehouse API: `system`, `routes`, `health`, `events`, `files`. */
export type GroupName = HttpApiGroup.Identifier<Groups>

/** An endpoint of the Gatehouse API, by group and name. */
export type EndpointOf<G extends GroupName, N extends string> = Extract<
  HttpApiEndpoint.WithIdentifier<HttpApiGroup.EndpointsWithIdentifier<Groups, G>, N>,
  HttpApiEndpoint.ConstraintRequest
>

/** The names of the endpoints of a group. */
export type EndpointName<G extends GroupName> = HttpApiEndpoint.Identifier<
  HttpApiGroup.EndpointsWithIdentifier<Groups, G>
>

/** What a call of an endpoint succeeds with (the decoded body). */
export type EndpointSuccess<E extends HttpApiEndpoint.ConstraintRequest> = HttpApiClient.SuccessType<E["~Success"]>

/**
 * What a call of an endpoint fails with: the endpoint's typed errors (e.g. `RouteNotFound`), its middleware's
 * (`Unauthenticated`, `InvalidArgument`, ...), `HttpClientError` (transport, undeclared status) and `SchemaError`
 * (a request the contract rejects before sending, or a body that does not decode).
 */
export type EndpointError<E extends HttpApiEndpoint.ConstraintRequest> =
  | E["~Error"]["Type"]
  | HttpApiMiddleware.Error<E["~Middleware"]>
  | HttpApiMiddleware.ClientError<E["~Middleware"]>
  | HttpClientError.HttpClientError
  | Schema.SchemaError

type Part<Key extends string, S extends Schema.Constraint> = [S["Type"]] extends [never]
  ? {}
  : {} extends S["Type"]
    ? { readonly [K in Key]?: S["Type"] }
    : { readonly [K in Key]: S["Type"] }

/**
 * The request of an endpoint, as the derived client takes it (`{ params, query, payload, headers }`), except that
 * a query or headers whose fields are all optional (every endpoint declares a query, so unknown parameters are
 * rejected) may be left out.
 */
export type EndpointRequest<E extends HttpApiEndpoint.ConstraintRequest> = Part<"params", E["~Params"]> &
  Part<"query", E["~Query"]> &
  Part<"payload", E["~Payload"]> &
  Part<"headers", E["~Headers"]>

/** One endpoint as a method: the request may be omitted when nothing in it is required. */
export type EndpointCall<E extends HttpApiEndpoint.ConstraintRequest> =
  {} extends EndpointRequest<E>
    ? (request?: EndpointRequest<E>) => Effect.Effect<EndpointSuccess<E>, EndpointError<E>>
    : (request: EndpointRequest<E>) => Effect.Effect<EndpointSuccess<E>, EndpointError<E>>

/** Every endpoint of a group as a method, named as in the contract. */
export type GroupCalls<G extends GroupName> = {
  readonly [N in EndpointName<G>]: EndpointCall<EndpointOf<G, N>>
}

/** The whole API as `client.<group>.<endpoint>(request?)`. */
export type ApiCalls = { readonly [G in GroupName]: GroupCalls<G> }

/**
 * Wraps the derived client so calls may leave out an all-optional query (`events.list()`) or headers: the derived
 * client needs `query: {}` (`headers: {}`) for an endpoint that declares them and fails with "Expected object"
 * without; endpoints that declare none ignore them.
 */
export const apiCalls = (derived: HttpApiClient.ForApi<typeof GatehouseApi>): ApiCalls => {
  const groups: Record<string, Record<string, unknown>> = {}
  for (const [group, endpoints] of Object.entries(derived as unknown as Record<string, Record<string, Function>>)) {
    const calls: Record<string, unknown> = {}
    for (const [name, call] of Object.entries(endpoints)) {
      calls[name] = (request?: { readonly query?: unknown; readonly headers?: unknown }) =>
        call({ ...request, query: request?.query ?? {}, headers: request?.headers ?? {} })
    }
    groups[group] = calls
  }
  return groups as unknown as ApiCalls
}
