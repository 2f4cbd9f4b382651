import { assert, describe, it } from "@effect/vitest"
import { type Disconnected, isRetryable, type Reconnected, type ReconnectOptions } from "@gatehouse-edge/client"
import { Clock, Duration, Effect, Exit, Fiber, Queue, Random, type Scope, Stream } from "effect"
import { HttpClientError } from "effect/http"
import { TestClock } from "effect/testing"
import type { Resumption } from "../src/Reconnect.js"
import { reconnecting } from "../src/ReconnectingStream.js"
import { WebSocketClosed } from "../src/WebSocketClosed.js"
import { openWebSocket } from "../src/WebSocketConnection.js"
import { type FakeConnection, type Refusal, startFakeServer } from "./support/FakeServer.js"

// The reconnect loop over real sockets to a plain `ws` server, which closes and refuses on demand; its delays on the
// TestClock. A connection is awaited as it arrives at the server (no sleeps), and the TestClock time each one was
// opened at shows the loop waited exactly the schedule's delay: with `Random` drawing 0.5, attempt n waits half of
// min(maxDelay, initialDelay × 2^(n-1)).

const half: Random.Random = { nextDoubleUnsafe: () => 0.5, nextIntUnsafe: () => 0 }

interface Harness {
  /** The connections as the server accepts them. */
  readonly next: Effect.Effect<FakeConnection>
  /** The TestClock time (ms) of each connection attempt. */
  readonly attemptedAt: ReadonlyArray<number>
  readonly disconnects: Queue.Queue<Disconnected>
  readonly reconnects: Queue.Queue<Reconnected>
  /** The frames delivered so far. */
  readonly frames: ReadonlyArray<string>
  readonly fiber: Fiber.Fiber<void, HttpClientError.HttpClientError | WebSocketClosed>
}

/** Follows the fake server with reconnection (`options` plus notices into queues), in a forked fiber. */
const follow = (
  options: ReconnectOptions<HttpClientError.HttpClientError | WebSocketClosed>,
  server: { readonly refuse?: (attempt: number) => Refusal | undefined } = {},
  resumption: Resumption = "snapshot"
): Effect.Effect<Harness, never, Scope.Scope> =>
  Effect.gen(function* () {
    let attempts = 0
    const fake = yield* startFakeServer({ refuse: () => server.refuse?.(++attempts) })
    const attemptedAt: Array<number> = []
    const frames: Array<string> = []
    const disconnects = yield* Queue.unbounded<Disconnected>()
    const reconnects = yield* Queue.unbounded<Reconnected>()
    const stream = reconnecting<string, HttpClientError.HttpClientError | WebSocketClosed>({
      connect: () =>
        Effect.gen(function* () {
          attemptedAt.push(yield* Clock.currentTimeMillis)
          const socket = yield* openWebSocket({ url: `${fake.origin}/x`, headers: {}, refused: () => Effect.void })
          return socket.frames
        }),
      retryable: isRetryable,
      resumption,
      options: {
        ...options,
        onDisconnect: (notice) => Queue.offer(disconnects, notice),
        onReconnect: (notice) => Queue.offer(reconnects, notice)
      }
    })
    const fiber = yield* stream.pipe(
      Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))),
      Effect.provideService(Random.Random, half),
      Effect.forkChild
    )
    return { next: Queue.take(fake.connections), attemptedAt, disconnects, reconnects, frames, fiber }
  })

/** Takes the next notice of a lost connection: its attempt, its delay (ms) and the close code it reports. */
const lost = (harness: Harness) =>
  Effect.map(Queue.take(harness.disconnects), (notice) => ({
    attempt: notice.attempt,
    delay: Duration.toMillis(notice.delay),
    code: notice.error instanceof WebSocketClosed ? notice.error.code : undefined
  }))

const restart = (connection: FakeConnection) => Effect.sync(() => connection.ws.close(1012, "service restart"))

describe("reconnecting", () => {
  it.effect("waits each delay of the backoff, then fails with the last error after maxAttempts", () =>
    Effect.gen(function* () {
      const harness = yield* follow({ initialDelay: "1 second", maxDelay: "4 seconds", maxAttempts: 4 })
      const first = yield* harness.next
      first.ws.send("a")
      yield* restart(first)
      const delays: Array<{ attempt: number; delay: number; code: number | undefined }> = []
      for (let i = 0; i < 4; i++) {
        const notice = yield* lost(harness)
        delays.push(notice)
        yield* TestClock.adjust(notice.delay)
        yield* restart(yield* harness.next)
      }
      assert.deepStrictEqual(delays, [
        { attempt: 1, delay: 500, code: 1012 },
        { attempt: 2, delay: 1000, code: 1012 },
        { attempt: 3, delay: 2000, code: 1012 },
        { attempt: 4, delay: 2000, code: 1012 }
      ])
      // Each attempt was made exactly when its delay was over, not before.
      assert.deepStrictEqual(harness.attemptedAt, [0, 500, 1500, 3500, 5500])
      const exit = yield* Fiber.await(harness.fiber)
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail")?.error : undefined
      assert.instanceOf(error, WebSocketClosed)
      assert.strictEqual((error as WebSocketClosed).code, 1012)
      assert.deepStrictEqual(harness.frames, ["a"])
    }).pipe(Effect.scoped)
  )

  it.effect("starts the backoff over once a connection stayed up for resetAfter, not before", () =>
    Effect.gen(function* () {
      const harness = yield* follow({ initialDelay: "1 second", resetAfter: "10 seconds" })
      yield* restart(yield* harness.next)
      const one = yield* lost(harness)
      yield* TestClock.adjust(one.delay)
      // Up for 9.999 s (from when the client saw it open): the series goes on.
      const short = yield* harness.next
      yield* Queue.take(harness.reconnects)
      yield* TestClock.adjust("9999 millis")
      yield* restart(short)
      const two = yield* lost(harness)
      yield* TestClock.adjust(two.delay)
      // Up for 10 s: it starts over.
      const long = yield* harness.next
      yield* Queue.take(harness.reconnects)
      yield* TestClock.adjust("10 seconds")
      yield* restart(long)
      const three = yield* lost(harness)
      assert.deepStrictEqual(
        [one, two, three].map((n) => [n.attempt, n.delay]),
        [
          [1, 500],
          [2, 1000],
          [1, 500]
        ]
      )
      yield* Fiber.interrupt(harness.fiber)
    }).pipe(Effect.scoped)
  )

  it.effect("retries a 5xx refusal of a reconnect; a normal close then ends the stream", () =>
    Effect.gen(function* () {
      const harness = yield* follow(
        { initialDelay: "1 second" },
        { refuse: (attempt) => (attempt === 2 ? { status: 503, body: "{}" } : undefined) }
      )
      const first = yield* harness.next
      first.ws.send("a")
      first.ws.close(1001, "going away")
      const gone = yield* lost(harness)
      yield* TestClock.adjust(gone.delay)
      const refused = yield* Queue.take(harness.disconnects)
      assert.strictEqual(refused.attempt, 2)
      assert.isTrue(HttpClientError.isHttpClientError(refused.error))
      yield* TestClock.adjust(refused.delay)
      const third = yield* harness.next
      assert.deepStrictEqual(yield* Queue.take(harness.reconnects), { attempt: 2, resumption: "snapshot" })
      third.ws.send("b")
      third.ws.close(1000)
      yield* Fiber.join(harness.fiber)
      assert.deepStrictEqual(harness.frames, ["a", "b"])
      assert.strictEqual(gone.code, 1001)
      assert.deepStrictEqual(harness.attemptedAt, [0, 500, 1500])
    }).pipe(Effect.scoped)
  )

  it.effect("a snapshot's first frame after a reconnect is skipped when it is the last one delivered", () =>
    Effect.gen(function* () {
      const harness = yield* follow({ initialDelay: "1 second" })
      const first = yield* harness.next
      first.ws.send("s1")
      yield* restart(first)
      yield* TestClock.adjust((yield* lost(harness)).delay)
      const second = yield* harness.next
      // The state again, then a change, then the change again (a real frame, not one after a reconnect).
      for (const frame of ["s1", "s2", "s2"]) second.ws.send(frame)
      yield* restart(second)
      yield* TestClock.adjust((yield* lost(harness)).delay)
      const third = yield* harness.next
      third.ws.send("s3")
      third.ws.close(1000)
      yield* Fiber.join(harness.fiber)
      assert.deepStrictEqual(harness.frames, ["s1", "s2", "s2", "s3"])
    }).pipe(Effect.scoped)
  )

  it.effect("a tail's frames all come again after a reconnect: nothing is dropped for looking repeated", () =>
    Effect.gen(function* () {
      const harness = yield* follow({ initialDelay: "1 second" }, {}, "tail")
      const first = yield* harness.next
      first.ws.send("ping ok")
      yield* restart(first)
      yield* TestClock.adjust((yield* lost(harness)).delay)
      const second = yield* harness.next
      second.ws.send("ping ok")
      second.ws.close(1000)
      yield* Fiber.join(harness.fiber)
      assert.deepStrictEqual(harness.frames, ["ping ok", "ping ok"])
      assert.deepStrictEqual(yield* Queue.take(harness.reconnects), { attempt: 1, resumption: "tail" })
    }).pipe(Effect.scoped)
  )

  it.effect("a consumer dropped as too slow (1008) is reconnected; the frames it had are kept", () =>
    Effect.gen(function* () {
      const harness = yield* follow({ initialDelay: "1 second" }, {}, "exact")
      const first = yield* harness.next
      first.ws.send("e1")
      first.ws.close(1008, "subscriber fell more than 256 events behind")
      const notice = yield* lost(harness)
      assert.deepInclude(notice, { attempt: 1, code: 1008 })
      yield* TestClock.adjust(notice.delay)
      const second = yield* harness.next
      second.ws.send("e2")
      second.ws.close(1000)
      yield* Fiber.join(harness.fiber)
      assert.deepStrictEqual(harness.frames, ["e1", "e2"])
    }).pipe(Effect.scoped)
  )

  it.effect("never retries a policy close (1008), nor a stream whose first connection failed", () =>
    Effect.gen(function* () {
      const policy = yield* follow({ initialDelay: "1 second" })
      const revoked = yield* policy.next
      revoked.ws.close(1008, "API key revoked")
      const closed = yield* Effect.flip(Fiber.join(policy.fiber))
      assert.instanceOf(closed, WebSocketClosed)
      assert.strictEqual((closed as WebSocketClosed).code, 1008)

      const never = yield* follow({ initialDelay: "1 second" }, { refuse: () => ({ status: 503, body: "{}" }) })
      const refused = yield* Effect.flip(Fiber.join(never.fiber))
      assert.isTrue(HttpClientError.isHttpClientError(refused))
      assert.deepStrictEqual(never.attemptedAt, [0])
      assert.strictEqual(yield* Queue.size(policy.disconnects), 0)
      assert.strictEqual(yield* Queue.size(never.disconnects), 0)
    }).pipe(Effect.scoped)
  )
})
