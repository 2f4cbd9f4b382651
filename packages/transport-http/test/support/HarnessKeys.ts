import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "./Http.js"
import type { Harness } from "./TransportHarness.js"

/** A JSON POST to the harness's API with `key`. */
export const postJson = (h: Harness, path: string, key: string, body: object) =>
  request(`${h.baseUrl}${path}`, { method: "POST", key, contentType: "application/json", body: JSON.stringify(body) })

/** A new API key holding `scopes`, created through the API by the harness's admin key. */
export const keyWith = (h: Harness, name: string, scopes: ReadonlyArray<string>) =>
  Effect.map(postJson(h, "/apikeys", h.apiKey, { name, scopes }), (created) => {
    assert.strictEqual(created.status, 201, created.text)
    return created.json.key as string
  })
