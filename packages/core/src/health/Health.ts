import { type HealthMap, sameStatuses } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as SubscriptionRef from "effect/SubscriptionRef"

/** Health of every route, from real monitors (HTTP(S), h2c, TCP, UDP, file server) that run per route. */
export class Health extends Context.Service<
  Health,
  {
    /** The current health of every route, monitored or not (`unknown`). */
    readonly snapshot: Effect.Effect<HealthMap>
    /**
     * The current map, then the map again when a route's status changes or routes are added or removed, at most
     * once per second; latency-only updates are not emitted. Shared: any number of watchers cost one upstream.
     */
    readonly changes: Stream.Stream<HealthMap>
  }
>()("@gatehouse-edge/core/Health") {
  /**
   * A Health service backed by a map the caller controls through {@link HealthMemory} (for tests): `changes`
   * emits each map set whose statuses or routes differ from the previous one, without a time throttle.
   */
  static readonly layerMemory = (initial: HealthMap = {}): Layer.Layer<Health | HealthMemory> =>
    Layer.effectContext(
      Effect.gen(function* () {
        const ref = yield* SubscriptionRef.make(initial)
        const health = Health.of({
          snapshot: SubscriptionRef.get(ref),
          changes: SubscriptionRef.changes(ref).pipe(Stream.changesWith(sameStatuses))
        })
        const memory = HealthMemory.of({
          set: (map) => SubscriptionRef.set(ref, map),
          update: (f) => SubscriptionRef.update(ref, f)
        })
        return Context.make(Health, health).pipe(Context.add(HealthMemory, memory))
      })
    )

  /** A Health service that always reports `map`; `changes` emits it once and stays open like a quiet live feed. */
  static readonly layerTest = (map: HealthMap): Layer.Layer<Health> =>
    Layer.succeed(Health)(
      Health.of({ snapshot: Effect.succeed(map), changes: Stream.concat(Stream.succeed(map), Stream.never) })
    )
}

/** Drives a `Health.layerMemory` from a test: whatever map is set is what `snapshot` and `changes` report. */
export class HealthMemory extends Context.Service<
  HealthMemory,
  {
    /** Replaces the whole map; `changes` emits it. */
    readonly set: (map: HealthMap) => Effect.Effect<void>
    /** Updates the map; `changes` emits the result. */
    readonly update: (f: (map: HealthMap) => HealthMap) => Effect.Effect<void>
  }
>()("@gatehouse-edge/core/HealthMemory") {}
