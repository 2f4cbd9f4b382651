import { assert, describe, it } from "@effect/vitest"
import { HealthEvents } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import { waitFor } from "../../../test/support/WaitFor.js"
import { openWs } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// A frame may be larger than the 1 MiB a client may have queued (a page of uptime for 1,000 routes over a month is
// 8 MB): it is sent, and the client is judged on whether it drains it, not on its size. Events carry the payload
// here because a test can make one of any size.

// More than a socket write takes at once, so most of it is queued in the server when the write returns.
const big = 8 * 1024 * 1024

const down = (alias: string, error: string) =>
  HealthEvents.down({ alias, status: "unhealthy", previous: "healthy", latency_ms: 0, error })

describe("frames larger than the queue limit", () => {
  it.live("a client that reads gets the whole frame and the stream goes on", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const ws = yield* openWs(`${h.wsUrl}/events?category=health`, { key: h.apiKey })
        yield* h.events.publish(down("big", "x".repeat(big)))
        yield* h.events.publish(down("small", "y"))
        const frame = JSON.parse(yield* ws.next())
        assert.strictEqual(frame.data.error.length, big)
        assert.strictEqual(JSON.parse(yield* ws.next()).data.alias, "small")
        assert.strictEqual(yield* h.openStreams, 1)
      })
    )
  )

  it.live("a client that does not read it is dropped with 1008 once the drain time is up", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ policy: { drainTimeoutMs: 300, closeGraceMs: 60_000 } })
        const ws = yield* openWs(`${h.wsUrl}/events?category=health`, { key: h.apiKey })
        ws.socket.pause()
        // More than the kernel's socket buffers take on loopback (a few MiB), so the server sees the queue.
        for (let i = 0; i < 4; i++) yield* h.events.publish(down(`big-${i}`, "x".repeat(big)))
        // Dropped: the stream has ended, its socket (and place) left for the grace.
        yield* waitFor(h.closingStreams, (n) => n === 1, "the server to drop the client")
        ws.socket.resume()
        const closed = yield* Effect.promise(() => ws.closed)
        assert.deepStrictEqual(closed, { code: 1008, reason: "client too slow" })
      })
    )
  )
})
