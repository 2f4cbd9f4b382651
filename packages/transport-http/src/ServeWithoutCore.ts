import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as FindMyWay from "effect/http/FindMyWay"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as Layer from "effect/Layer"

// The keys of the core's services and repositories (`Context.Service` keys of @gatehouse-edge/core).
const corePrefix = "@gatehouse-edge/core/"

/** The core's services among `R`: a class-style `Context.Service` carries its key as a literal type. */
type CoreServicesIn<R> = R extends { readonly key: `${typeof corePrefix}${string}` } ? R : never

/** What an app's routes take from the context of each request they serve. */
type PerRequest<R> = HttpRouter.Request.Only<"Requires", R> | HttpRouter.Request.Only<"GlobalRequires", R>

/**
 * Nothing, unless a route of the app takes a core service from the request's context: that would fail on every
 * call, since requests run without the core's services. Then the app does not type-check, and the message names
 * the remedy and the service.
 */
type NoCoreServicePerRequest<R> = [CoreServicesIn<PerRequest<R>>] extends [never]
  ? unknown
  : {
      readonly "a route takes a core service per request; take it when the route is built": CoreServicesIn<
        PerRequest<R>
      >
    }

/** `context` less the core's services (which `R`, the server's own requirements, does not name). */
const withoutCore = <R>(context: Context.Context<R>): Context.Context<R> =>
  Context.makeUnsafe(new Map([...context.mapUnsafe].filter(([key]) => !key.startsWith(corePrefix))))

/**
 * `HttpRouter.serve(app)` (no request logger, no listen log), except that requests run in the server's context
 * less the core's services. A request's context starts as the context the server was started in, and the stack
 * copies it more than once per request (`HttpApiBuilder` merges each handler group's context into it, and lookups
 * flatten it): with the core's ~30 services and repositories in it, that copying was a large part of a request's
 * cost. Handlers do not need them there: every handler group carries the services it uses (`withOwnContext`),
 * and the routes outside the API take theirs when they are built. What stays is what the HTTP stack itself
 * provides: the server, the loggers and log level, the WebSocket policy and connection counts, and the like.
 * A route that takes a core service per request does not type-check (see {@link NoCoreServicePerRequest}).
 */
export const serveWithoutCore = <A, E, R>(
  app: Layer.Layer<A, E, R> & NoCoreServicePerRequest<R>,
  options: { readonly routerConfig?: Partial<FindMyWay.RouterConfig> | undefined } = {}
): Served<A, E, R> =>
  Layer.unwrap(
    Effect.gen(function* () {
      const router =
        options.routerConfig === undefined
          ? HttpRouter.layer
          : Layer.provide(HttpRouter.layer, Layer.succeed(HttpRouter.RouterConfig)(options.routerConfig))
      const context = yield* Layer.build(Layer.provideMerge(app, router))
      const handler = Context.get(context, HttpRouter.HttpRouter).asHttpEffect()
      const serving = Layer.effectDiscard(
        HttpServer.serveEffect(handler).pipe(Effect.updateContext((context) => withoutCore(context)))
      )
      return Layer.merge(serving, Layer.succeedContext(context))
    })
    // The request-level markers of `R` are what the router resolves: the same types as HttpRouter.serve's.
  ) as unknown as Served<A, E, R>

/** What `HttpRouter.serve(app)` gives: `app`'s services, served on an `HttpServer`. */
type Served<A, E, R> = Layer.Layer<
  A,
  HttpRouter.Request.Without<E>,
  | HttpServer.HttpServer
  | Exclude<
      | HttpRouter.Request.Without<R>
      | Exclude<
          HttpRouter.Request.Only<"Requires", R> | HttpRouter.Request.Only<"GlobalRequires", R>,
          HttpRouter.GlobalProvided
        >,
      HttpRouter.HttpRouter
    >
>
