import type { ContainerTarget, Route, ValidationIssue } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

/** One route as a provider offers it: already validated on its own, with the source it came from. */
export interface ProvidedRoute {
  readonly route: Route
  /** Where it came from, shown as the route's `provider`: `file:routes.yml`, `docker:local`, ... */
  readonly source: string
  /** Declared but not to be served (`proxy.exclude`): listed, never health-checked. */
  readonly excluded: boolean
  /** The container the route's target runs in, when a container defines it. */
  readonly container?: ContainerTarget | undefined
}

/**
 * What a provider currently offers: its valid routes and its problems. A provider that meets a bad source keeps
 * offering that source's last good routes and reports the problem in `issues`; it never drops good routes.
 */
export interface ProviderState {
  readonly routes: ReadonlyArray<ProvidedRoute>
  readonly issues: ReadonlyArray<ValidationIssue>
  /**
   * Why the source could not be validated at all this time (the validation workers busy or failing), if so: the
   * routes are the last validated ones, and what changed in the source is not applied yet.
   */
  readonly unvalidated?: string | undefined
}

/** A source of routes: the route files, the labels of the containers of one Docker host, ... */
export interface RouteProvider {
  /** Unique among providers, e.g. `files` or `docker:local`. */
  readonly name: string
  /** The provider's state now, then each new state. If it fails, its last state stays in the table. */
  readonly states: Stream.Stream<ProviderState>
  /** Reads the source again now (route files), for `Routes.reload`; the new state also comes on `states`. */
  readonly reload?: Effect.Effect<ProviderState> | undefined
}

/**
 * Where providers plug into the route table: a provider added here joins the table at once (the call returns
 * after its first state is in), and leaves it when the scope that added it closes. The route table checks
 * what crosses providers (duplicate aliases, listener conflicts, references) on the merged table; a route that
 * loses such a conflict is reported and left out, and the earlier provider (in the order added) wins.
 */
export class RouteProviders extends Context.Service<
  RouteProviders,
  { readonly add: (provider: RouteProvider) => Effect.Effect<void, never, Scope.Scope> }
>()("@gatehouse-edge/core/RouteProviders") {}
