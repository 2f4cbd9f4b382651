import { assert, describe, it } from "@effect/vitest"
import {
  ClientTooSlow,
  EventNotFound,
  EventsTrimmed,
  isRetryable,
  PermissionDenied,
  type ReconnectOptions,
  reconnectSchedule,
  ServerShuttingDown,
  SubscriberTooSlow,
  Unauthenticated,
  ValidationFailed,
  WebSocketClosed
} from "@gatehouse-edge/client"
import { Duration, Effect, Exit, Random, Schedule, Schema } from "effect"
import { HttpClientError, HttpClientRequest, HttpClientResponse } from "effect/http"

// The policy alone, without a connection: which failures a reconnect can fix, and the delays between attempts.

/** A `Random` that always draws `value`: the jittered delay is then exactly `value` × the cap. */
const drawing = (value: number): Random.Random => ({ nextDoubleUnsafe: () => value, nextIntUnsafe: () => 0 })

/** The delays (ms) of the first `steps` attempts, then whether the schedule had ended by the last. */
const delaysOf = (options: ReconnectOptions<never>, steps: number) =>
  Effect.gen(function* () {
    const step = yield* Schedule.toStep(reconnectSchedule(options))
    const delays: Array<number | "done"> = []
    for (let i = 0; i < steps; i++) {
      const exit = yield* Effect.exit(step(0, undefined))
      delays.push(Exit.isSuccess(exit) ? Duration.toMillis(exit.value[1]) : "done")
    }
    return delays
  })

describe("reconnectSchedule", () => {
  it.effect("doubles from 0.5 s to a 30 s cap, each delay drawn below its cap (full jitter)", () =>
    Effect.gen(function* () {
      const half = yield* delaysOf({}, 9).pipe(Effect.provideService(Random.Random, drawing(0.5)))
      assert.deepStrictEqual(half, [250, 500, 1000, 2000, 4000, 8000, 15_000, 15_000, 15_000])
      const top = yield* delaysOf({}, 8).pipe(Effect.provideService(Random.Random, drawing(0.9999)))
      assert.deepStrictEqual(top, [499, 999, 1999, 3999, 7999, 15_998, 29_997, 29_997])
      const bottom = yield* delaysOf({}, 3).pipe(Effect.provideService(Random.Random, drawing(0)))
      assert.deepStrictEqual(bottom, [0, 0, 0])
    })
  )

  it.effect("spreads delays over the whole range below the cap, not around it", () =>
    Effect.gen(function* () {
      const delays = yield* delaysOf({ initialDelay: "1 second", maxDelay: "1 second" }, 500).pipe(
        Random.withSeed("reconnect")
      )
      const ms = delays.map(Number)
      assert.isTrue(
        ms.every((d) => d >= 0 && d < 1000),
        "every delay within [0, cap)"
      )
      assert.isBelow(Math.min(...ms), 100)
      assert.isAbove(Math.max(...ms), 900)
    })
  )

  it.effect("takes the options, and ends after maxAttempts", () =>
    Effect.gen(function* () {
      const delays = yield* delaysOf({ initialDelay: "100 millis", maxDelay: "1 second", maxAttempts: 5 }, 7).pipe(
        Effect.provideService(Random.Random, drawing(0.5))
      )
      assert.deepStrictEqual(delays, [50, 100, 200, 400, 500, "done", "done"])
    })
  )
})

const request = HttpClientRequest.get("http://127.0.0.1:1/api/v1/events")
const refusedWith = (status: number) =>
  new HttpClientError.HttpClientError({
    reason: new HttpClientError.StatusCodeError({
      request,
      response: HttpClientResponse.fromWeb(request, new Response(null, { status })),
      description: "expected a WebSocket upgrade"
    })
  })
const unreachable = new HttpClientError.HttpClientError({
  reason: new HttpClientError.TransportError({ request, cause: new Error("ECONNREFUSED"), description: "failed" })
})
const closed = (code: number) => new WebSocketClosed({ code, reason: "" })
const undecodable = Effect.runSync(Effect.flip(Schema.decodeUnknownEffect(Schema.Number)("not a frame")))

describe("isRetryable", () => {
  it("retries a lost connection, a restart, an overloaded or failing server, and no connection at all", () => {
    for (const error of [
      closed(1001),
      closed(1006),
      closed(1011),
      closed(1012),
      closed(1013),
      unreachable,
      refusedWith(502),
      refusedWith(503),
      refusedWith(429),
      new ServerShuttingDown({}),
      // Dropped as too slow: opened again, the stream picks up (events after the last id, without a gap).
      new WebSocketClosed({ code: 1008, reason: new SubscriberTooSlow({ buffer_size: 256 }).message }),
      new WebSocketClosed({ code: 1008, reason: new ClientTooSlow({ queued_bytes: 1 }).message }),
      new WebSocketClosed({ code: 1008, reason: new ClientTooSlow({ queued_bytes: 1, budget_bytes: 1024 }).message })
    ]) {
      assert.isTrue(isRetryable(error), String(error))
    }
  })

  it("never retries a refusal, a policy close, a normal or unexplained end, or a frame that does not decode", () => {
    for (const error of [
      closed(1000),
      closed(1003),
      closed(1005),
      closed(1008),
      new WebSocketClosed({ code: 1008, reason: "API key revoked" }),
      new WebSocketClosed({ code: 1000, reason: "client too slow" }),
      closed(1009),
      refusedWith(401),
      refusedWith(403),
      refusedWith(404),
      new Unauthenticated({ message: "bad key" }),
      new PermissionDenied({ message: "events:read needed" }),
      new EventsTrimmed({ since: "x", oldest_id: null }),
      new EventNotFound({ since: "x" }),
      new ValidationFailed({ issues: [] }),
      undecodable,
      new Error("a plain error")
    ]) {
      assert.isFalse(isRetryable(error), String(error))
    }
  })
})
