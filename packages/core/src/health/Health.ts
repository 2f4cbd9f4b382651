import { Context, type Effect, type Stream } from "effect"
import type { HealthMap } from "../domain/Health.js"

/** Health of every route, from real monitors (HTTP(S), TCP, UDP, file server) that run per route. */
export class Health extends Context.Service<
  Health,
  {
    /** The current health of every route. */
    readonly snapshot: Effect.Effect<HealthMap>
    /** The current map, then the map again each time any route's status changes. */
    readonly changes: Stream.Stream<HealthMap>
  }
>()("@gatehouse/core/Health") {}
