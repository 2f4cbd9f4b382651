import type { Health } from "@gatehouse-edge/core/services"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** The health map as sent: its JSON as UTF-8, encoded once per rendering rather than once per response. */
export interface RenderedHealth {
  readonly bytes: Uint8Array
}

/**
 * Renders the health map at most once per `maxAgeMs` for every caller together. With a thousand routes, building
 * and serializing the map is nearly all of a request's cost, and the values only move every few seconds (checks
 * run every `interval`, 5 s by default), so a snapshot up to a second old is what a client would see anyway.
 * The map is plain JSON data, so it is serialized directly rather than through its schema.
 */
export const makeHealthRenderer = (health: Health["Service"], maxAgeMs = 1000) => {
  let cached: { readonly at: number; readonly rendered: RenderedHealth } | undefined
  // Chained, not Effect.gen: the cached answer is served on every request, and the generator cost more than it.
  return Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (cached !== undefined && now - cached.at < maxAgeMs) return Effect.succeed(cached.rendered)
    return Effect.map(health.snapshot, (snapshot) => {
      const rendered = { bytes: Buffer.from(JSON.stringify(snapshot)) }
      cached = { at: now, rendered }
      return rendered
    })
  })
}
