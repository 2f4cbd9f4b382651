import { assert, describe, it } from "@effect/vitest"
import { type StreamEndpoint, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { frameEncoder } from "../src/websocket/StreamEndpoint.js"

describe("frame encoding", () => {
  it("encodes a frame object once, however many watchers of a shared stream send it", () => {
    let encoded = 0
    const endpoint = {
      ...StreamEndpoints.health,
      framesAsJson: true,
      toJson: (frame: unknown) => {
        encoded++
        return JSON.stringify(frame)
      }
    } as unknown as StreamEndpoint
    const page = { total: 1, data: [{ alias: "a" }] }
    // Each watcher's stream asks for the endpoint's encoder; they share one.
    const [first, second] = [frameEncoder(endpoint), frameEncoder(endpoint)]
    assert.strictEqual(first, second)
    assert.strictEqual(first(page as never), second(page as never))
    assert.strictEqual(encoded, 1)
    // Another object is another frame, even when equal.
    first({ ...page } as never)
    assert.strictEqual(encoded, 2)
  })

  it("a declared schema's encoding is what it was", () => {
    const encode = frameEncoder(StreamEndpoints.health)
    const map = { app: { status: "healthy", latency_ms: 1, uptime_s: 2, last_check: null } } as const
    assert.strictEqual(encode(map), JSON.stringify(map))
    assert.strictEqual(encode(map), encode(map))
  })
})
