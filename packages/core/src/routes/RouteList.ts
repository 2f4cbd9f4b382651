import type { RouteEntry, RouteNotFound } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"

/** The routes as the API lists them: each route with its provider, its excluded flag and its current health. */
export class RouteList extends Context.Service<
  RouteList,
  {
    readonly list: Effect.Effect<ReadonlyArray<RouteEntry>>
    readonly get: (alias: string) => Effect.Effect<RouteEntry, RouteNotFound>
    /**
     * The list, then the list again once per change: a route added, removed or changed, or a route's health
     * status changing (at most once per second). One change gives one new list, never an intermediate one.
     */
    readonly changes: Stream.Stream<ReadonlyArray<RouteEntry>>
  }
>()("@gatehouse-edge/core/RouteList") {}
