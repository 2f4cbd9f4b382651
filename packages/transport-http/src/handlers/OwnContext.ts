import { Authorization, RequestValidation } from "@gatehouse-edge/contract/api"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"

/** The API's middleware: every group's endpoints are built with them. */
type Middleware = Authorization | RequestValidation

/**
 * What a group built by {@link withOwnContext} may require: the services it is given and the middleware when it
 * is built, and services a request brings along (`HttpRouter.Request<"Requires", _>`, e.g. a stream endpoint's
 * connection counts, which the request's own context holds).
 */
type Allowed<Keys extends ReadonlyArray<Context.Key<unknown, unknown>>> =
  | Context.Service.Identifier<Keys[number]>
  | Middleware
  | HttpRouter.Request<"Requires", unknown>

/**
 * A handler group built in a context holding only `services` and the API's middleware, instead of the server's
 * whole context. `HttpApiBuilder.group` keeps the context its group was built in and merges it into the context
 * of every request the group serves: built among the server's ~50 services, that merge copied them all per
 * request. The handlers take their services when the group is built, so these few are all a request needs, and
 * the type holds it to that: `group` may require nothing but `services`, the middleware and what a request
 * brings.
 */
export const withOwnContext = <
  A,
  E,
  R extends Allowed<Keys>,
  const Keys extends ReadonlyArray<Context.Key<unknown, unknown>>
>(
  group: Layer.Layer<A, E, R>,
  ...services: Keys
): Layer.Layer<A, E, R> =>
  Layer.effectContext(
    Effect.flatMap(Effect.context<R>(), (context) =>
      Effect.flatMap(Effect.scope, (scope) =>
        Layer.buildWithScope(group, scope).pipe(
          // The build sees these services alone; a request-time requirement is only a marker in `R`.
          Effect.updateContext(
            () => Context.pick(...services, Authorization, RequestValidation)(context) as Context.Context<R>
          )
        )
      )
    )
  )
