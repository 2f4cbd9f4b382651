import { Context, Effect, Layer, Stream, SubscriptionRef } from "effect"
import type { HealthMap } from "../domain/Health.js"
import type { Events } from "../events/Events.js"
import type { Routes } from "../routes/Routes.js"
import { makeHealth } from "./HealthLive.js"
import { HealthMemory } from "./HealthMemory.js"

/** Health of every route, from real monitors (HTTP(S), h2c, TCP, UDP, file server) that run per route. */
export class Health extends Context.Service<
  Health,
  {
    /** The current health of every route, monitored or not (`unknown`). */
    readonly snapshot: Effect.Effect<HealthMap>
    /**
     * The current map, then the map again each time any route's status changes or routes are added or removed;
     * latency-only updates are not emitted.
     */
    readonly changes: Stream.Stream<HealthMap>
  }
>()("@gatehouse-edge/core/Health") {
  /** The real service: follows `Routes`, runs one monitor per route, publishes `health/up|down` to `Events`. */
  static readonly layer: Layer.Layer<Health, never, Routes | Events> = Layer.effect(
    Health,
    Effect.map(makeHealth, (service) => Health.of(service))
  )

  /** A Health service backed by a map the caller controls through {@link HealthMemory} (for tests). */
  static readonly layerMemory = (initial: HealthMap = {}): Layer.Layer<Health | HealthMemory> =>
    Layer.effectContext(
      Effect.gen(function* () {
        const ref = yield* SubscriptionRef.make(initial)
        const health = Health.of({ snapshot: SubscriptionRef.get(ref), changes: SubscriptionRef.changes(ref) })
        const memory = HealthMemory.of({
          set: (map) => SubscriptionRef.set(ref, map),
          update: (f) => SubscriptionRef.update(ref, f)
        })
        return Context.make(Health, health).pipe(Context.add(HealthMemory, memory))
      })
    )

  /** A Health service that always reports `map`; `changes` emits it once and stays open like a quiet live feed. */
  static readonly layerStatic = (map: HealthMap): Layer.Layer<Health> =>
    Layer.succeed(Health)(
      Health.of({ snapshot: Effect.succeed(map), changes: Stream.concat(Stream.succeed(map), Stream.never) })
    )
}
