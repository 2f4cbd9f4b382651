import type { Health } from "@gatehouse-edge/core"
import type { HealthMap } from "@gatehouse-edge/core/domain"
import { Clock, Effect } from "effect"

/** The health map as sent: its JSON, and a signature of its statuses to tell "a status changed" from noise. */
export interface RenderedHealth {
  readonly json: string
  /** `json` as UTF-8, encoded once per rendering rather than once per response. */
  readonly bytes: Uint8Array
  readonly statuses: string
}

const statusSignature = (map: HealthMap) =>
  Object.keys(map)
    .map((alias) => `${alias}=${map[alias]!.status}`)
    .join(",")

/**
 * Renders the health map at most once per `maxAgeMs` for every caller together. With a thousand routes, building
 * and serializing the map is nearly all of a request's cost, and the values only move every few seconds (checks
 * run every `interval`, 5 s by default), so a snapshot up to a second old is what a client would see anyway.
 * The map is plain JSON data, so it is serialized directly rather than through its schema.
 */
export const makeHealthRenderer = (health: Health["Service"], maxAgeMs = 1000) => {
  let cached: { readonly at: number; readonly rendered: RenderedHealth } | undefined
  return Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    if (cached !== undefined && now - cached.at < maxAgeMs) return cached.rendered
    const map = yield* health.snapshot
    const json = JSON.stringify(map)
    const rendered = { json, bytes: Buffer.from(json), statuses: statusSignature(map) }
    cached = { at: now, rendered }
    return rendered
  })
}
