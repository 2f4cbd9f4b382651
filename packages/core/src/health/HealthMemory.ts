import { Context, type Effect } from "effect"
import type { HealthMap } from "../domain/Health.js"

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
