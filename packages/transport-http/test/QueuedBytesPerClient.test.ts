import { assert, describe, it } from "@effect/vitest"
import type { HealthMap } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import { WebSocket } from "ws"
import { waitFor } from "../../../test/support/WaitFor.js"
import type { WebSocketPolicyShape } from "../src/websocket/WebSocketPolicy.js"
import { openWs, request } from "./support/Http.js"
import { type Harness, startHarness } from "./support/TransportHarness.js"

// A client (an address) may hold many streams: what is queued for it is bounded on all of them together, not only
// stream by stream. The loopback peer is a trusted proxy, so each stream says which client it is for.

const KiB = 1024
const MiB = 1024 * KiB
// Each frame carries this much (the one route's last check, as long as the test likes).
const padding = "x".repeat(32 * KiB)

/** The health map of toggle `i`: the status flips each time (a frame per change), `latency_ms` names the toggle. */
const toggle = (i: number): HealthMap => ({
  app: { status: i % 2 === 0 ? "healthy" : "unhealthy", latency_ms: i, uptime_s: 0, last_check: padding }
})

const stalledClient = "10.0.0.1"
const readingClient = "10.0.0.2"

const harness = (policy: Partial<WebSocketPolicyShape>) =>
  startHarness({
    routeFiles: { "a.yml": "app:\n  port: 8001\n" },
    health: toggle(0),
    trustedProxy: (address) => address === "127.0.0.1",
    policy
  })

const healthStream = (h: Harness, client: string) =>
  openWs(`${h.wsUrl}/health`, { key: h.apiKey, headers: { "x-forwarded-for": client } })

type Client = Effect.Success<ReturnType<typeof healthStream>>

/**
 * Flips the health until `closed` streams have ended, at the pace of the `readers`: each reads every change before
 * the next. Returns the last toggle and the most the server counted as queued for the stalled client meanwhile.
 */
const flipUntilClosed = (h: Harness, readers: ReadonlyArray<Client>, closed: number) =>
  Effect.gen(function* () {
    let i = 0
    let peak = 0
    while ((yield* h.closingStreams) < closed) {
      if (i === 5000) return assert.fail(`${closed} streams were never closed`)
      i++
      yield* h.health.set(toggle(i))
      for (const reader of readers) yield* reader.until((frame) => frame.app.latency_ms === i)
      peak = Math.max(peak, yield* h.queuedBytes(stalledClient))
    }
    return { last: i, peak }
  })

const latenciesOf = (client: Client) => client.frames.map((frame) => JSON.parse(frame).app.latency_ms)

describe("bytes queued for one client on all its streams", () => {
  it.live(
    "a client's streams that it does not read are closed once together they would pass its budget, each far under its own limit; a client that reads as many is not affected",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const budget = 1 * MiB
          // A stream alone may queue 8 MiB: only the client's budget can close these streams.
          const h = yield* harness({
            drainAboveBytes: 8 * MiB,
            maxBufferedBytes: 8 * MiB,
            drainTimeoutMs: 300,
            closeGraceMs: 60_000,
            maxBufferedBytesPerClient: budget
          })
          const stalled = yield* Effect.forEach([1, 2, 3, 4], () => healthStream(h, stalledClient))
          for (const client of stalled) client.socket.pause()
          const readers = yield* Effect.forEach([1, 2, 3, 4], () => healthStream(h, readingClient))

          const { last, peak } = yield* flipUntilClosed(h, readers, stalled.length)
          // The stalled client's streams filled its budget together, and never passed it.
          assert.isAtMost(peak, budget)
          assert.isAbove(peak, budget - 2 * (padding.length + KiB))
          // The reading client, with as many streams, got every change on each, and its streams are open.
          for (const reader of readers) {
            assert.deepStrictEqual(
              latenciesOf(reader).filter((latency) => latency > 0),
              Array.from({ length: last }, (_, i) => i + 1)
            )
            assert.strictEqual(reader.socket.readyState, WebSocket.OPEN)
          }
          // The stalled client, reading at last, learns why: its streams together.
          for (const client of stalled) client.socket.resume()
          for (const client of stalled) {
            assert.deepStrictEqual(yield* Effect.promise(() => client.closed), {
              code: 1008,
              reason: "client too slow: its streams together queued more than 1 MiB"
            })
          }

          // Once their sockets are gone, nothing stays counted for it, nor anywhere once the readers have read.
          yield* waitFor(h.queuedBytes(stalledClient), (bytes) => bytes === 0, "the stalled client's bytes to go")
          yield* waitFor(h.queuedBytes(), (bytes) => bytes === 0, "every queued byte to go")
          yield* waitFor(h.openStreams, (n) => n === readers.length, "the closed streams' places to go")
          assert.strictEqual(yield* h.closingStreams, 0)
          // And the client, reading now, streams again as much as before.
          const again = yield* Effect.forEach([1, 2, 3, 4], () => healthStream(h, stalledClient))
          yield* h.health.set(toggle(last + 1))
          for (const client of [...readers, ...again]) {
            yield* client.until((frame) => frame.app.latency_ms === last + 1)
          }
          assert.strictEqual((yield* request(`${h.baseUrl}/version`)).status, 200)
        })
      ),
    60_000
  )

  it.live(
    "a stream closed as too slow keeps its place, and its queued bytes, until its socket is gone",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* harness({
            drainAboveBytes: 16 * KiB,
            maxBufferedBytes: 64 * KiB,
            drainTimeoutMs: 300,
            closeGraceMs: 60_000,
            maxConnectionsPerClient: 1
          })
          const stalled = yield* healthStream(h, stalledClient)
          stalled.socket.pause()
          const reader = yield* healthStream(h, readingClient)
          yield* flipUntilClosed(h, [reader], 1)
          // Closed, but its close frame waits behind what it has not read: the socket is there for the grace, and
          // so are its place (the client may open no other stream) and its bytes.
          assert.deepStrictEqual([yield* h.openStreams, yield* h.closingStreams], [2, 1])
          assert.isAbove(yield* h.queuedBytes(stalledClient), 0)
          const refused = yield* Effect.flip(healthStream(h, stalledClient))
          assert.strictEqual(refused.status, 429)
          // The client reads at last, answers the close, and its socket goes: with it the place and the bytes.
          stalled.socket.resume()
          assert.strictEqual((yield* Effect.promise(() => stalled.closed)).code, 1008)
          yield* waitFor(h.openStreams, (n) => n === 1, "the closed stream's place to go")
          assert.deepStrictEqual([yield* h.closingStreams, yield* h.queuedBytes(stalledClient)], [0, 0])
          const again = yield* healthStream(h, stalledClient)
          assert.strictEqual(typeof JSON.parse(yield* again.next()).app.latency_ms, "number")
        })
      ),
    60_000
  )
})
