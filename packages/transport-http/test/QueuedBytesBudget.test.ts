import { assert, describe, it } from "@effect/vitest"
import { ClientTooSlow, errorCodeOf, RateLimited } from "@gatehouse-edge/core/domain"
import { Effect, Exit, Fiber, Layer, Scope } from "effect"
import { TestClock } from "effect/testing"
import { type StreamPlace, WebSocketConnections } from "../src/websocket/WebSocketConnections.js"
import { WebSocketPolicy } from "../src/websocket/WebSocketPolicy.js"

// The budgets of queued bytes on their own, on the test clock: places taken directly, bytes counted and uncounted
// as the session does when it writes and when the kernel takes what it wrote.

const policy = (budgets: { readonly perClient: number; readonly perServer: number }) =>
  Layer.succeed(WebSocketPolicy)({
    ...WebSocketPolicy.defaultValue(),
    drainTimeoutMs: 1000,
    maxBufferedBytesPerClient: budgets.perClient,
    maxBufferedBytesPerServer: budgets.perServer
  })

const withConnections = (budgets: { readonly perClient: number; readonly perServer: number }) =>
  Effect.provide(Layer.merge(WebSocketConnections.layer, policy(budgets)))

/** A place for `address` in a scope of its own, closed by the test. */
const placeFor = (address: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const place = yield* Scope.provide((yield* WebSocketConnections).acquire(address), scope)
    return { place, close: Scope.close(scope, Exit.void) }
  })

/** Runs `queue` in a fiber of its own and lets it go as far as it can without the clock moving. */
const startQueue = (place: StreamPlace, bytes: number) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(place.queue(bytes))
    yield* Effect.yieldNow
    return fiber
  })

/** Asserts that `fiber` has already succeeded (the test clock never moves on by itself: a waiting one would hang). */
const succeeded = (fiber: Fiber.Fiber<void, unknown>, what: string) => {
  const exit = fiber.pollUnsafe()
  assert.isTrue(exit !== undefined && Exit.isSuccess(exit), what)
}

const queued = (address?: string) => Effect.flatMap(WebSocketConnections, (c) => c.queuedBytes(address))

describe("the budgets of queued bytes", () => {
  it.effect("a stream waits for room in its client's budget, and gets it when another stream's bytes leave", () =>
    Effect.gen(function* () {
      const a1 = yield* placeFor("10.0.0.1")
      const a2 = yield* placeFor("10.0.0.1")
      const b = yield* placeFor("10.0.0.2")
      yield* a1.place.queue(80)
      const waiting = yield* startQueue(a2.place, 30)
      assert.isUndefined(waiting.pollUnsafe(), "110 bytes do not fit in the client's 100")
      // Another client has a budget of its own.
      yield* b.place.queue(100)
      a1.place.sent(50)
      yield* Effect.yieldNow
      succeeded(waiting, "30 bytes fit once 50 have left")
      assert.strictEqual(yield* queued("10.0.0.1"), 60)
      assert.strictEqual(yield* queued(), 160)
    }).pipe(withConnections({ perClient: 100, perServer: 1000 }))
  )

  it.effect("one that gets no room within drainTimeoutMs fails, saying which budget its streams passed", () =>
    Effect.gen(function* () {
      const a1 = yield* placeFor("10.0.0.1")
      const a2 = yield* placeFor("10.0.0.1")
      const b = yield* placeFor("10.0.0.2")
      yield* a1.place.queue(80)
      const overClient = yield* startQueue(a2.place, 30)
      // Within its own budget, but the server's 150 are spent by both clients together.
      const overServer = yield* startQueue(b.place, 80)
      yield* TestClock.adjust(999)
      assert.isUndefined(overClient.pollUnsafe())
      assert.isUndefined(overServer.pollUnsafe())
      yield* TestClock.adjust(1)
      const client = yield* Effect.flip(Fiber.join(overClient))
      assert.instanceOf(client, ClientTooSlow)
      assert.strictEqual(client.message, "client too slow: its streams together queued more than 100 bytes")
      // Its own budget passed: too slow, not retried (1008).
      assert.strictEqual(errorCodeOf(client), "slow_consumer")
      const server = yield* Effect.flip(Fiber.join(overServer))
      assert.strictEqual(
        server.message,
        "server busy: the streams of all clients together queued more than 150 bytes; try again later"
      )
      // The server's, which other clients filled: try again later (1013), which a client that reads retries.
      assert.instanceOf(server, RateLimited)
      assert.strictEqual(errorCodeOf(server), "rate_limited")
      // What failed was never counted.
      assert.strictEqual(yield* queued(), 80)
    }).pipe(withConnections({ perClient: 100, perServer: 150 }))
  )

  it.effect("a frame larger than the whole budget goes once nothing else of the client is queued", () =>
    Effect.gen(function* () {
      const a1 = yield* placeFor("10.0.0.1")
      const a2 = yield* placeFor("10.0.0.1")
      yield* a1.place.queue(10)
      const big = yield* startQueue(a2.place, 500)
      assert.isUndefined(big.pollUnsafe())
      a1.place.sent(10)
      yield* Effect.yieldNow
      succeeded(big, "the large frame goes once the client has nothing queued")
      assert.strictEqual(yield* queued("10.0.0.1"), 500)
    }).pipe(withConnections({ perClient: 100, perServer: 1000 }))
  )

  it.effect("a place and its bytes go when its scope closes, or, once kept, when its socket is gone", () =>
    Effect.gen(function* () {
      const connections = yield* WebSocketConnections
      const served = yield* placeFor("10.0.0.1")
      yield* served.place.queue(40)
      yield* served.close
      assert.deepStrictEqual([yield* connections.open, yield* queued()], [0, 0])

      const kept = yield* placeFor("10.0.0.1")
      yield* kept.place.queue(40)
      let release: () => void = () => assert.fail("not handed over")
      kept.place.keepUntilGone((r) => {
        release = r
      })
      yield* kept.close
      // The stream has ended; its socket, its place and its bytes are still there.
      assert.deepStrictEqual(
        [yield* connections.open, yield* connections.closing, yield* queued("10.0.0.1")],
        [1, 1, 40]
      )
      const other = yield* placeFor("10.0.0.1")
      const waiting = yield* startQueue(other.place, 70)
      release()
      release()
      yield* Effect.yieldNow
      succeeded(waiting, "the bytes that left made room")
      assert.deepStrictEqual(
        [yield* connections.open, yield* connections.closing, yield* queued("10.0.0.1")],
        [1, 0, 70]
      )
      // Bytes of a place that is gone are not counted again, whatever its stream still writes.
      yield* other.close
      yield* other.place.queue(5)
      assert.deepStrictEqual([yield* connections.open, yield* queued()], [0, 0])
    }).pipe(withConnections({ perClient: 100, perServer: 1000 }))
  )
})
