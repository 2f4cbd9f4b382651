import { assert, describe, it } from "@effect/vitest"
import type { Disconnected, Event } from "@gatehouse-edge/client"
import { Deferred, Effect, Fiber, Queue, Stream } from "effect"
import { v7 } from "uuid"
import { labelOf, takeUntil, testEvent } from "../../../test/support/TestEvents.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { makeStreams } from "../src/GatehouseStreams.js"
import { clientFor } from "./support/Clients.js"
import { nextConnection, startFakeServer } from "./support/FakeServer.js"
import { eventually, startTcpProxy } from "./support/TcpProxy.js"

// An events watch with reconnect that loses its connection before it delivered any event: it must not come back
// with only the newest `limit` of what was published meanwhile.

const fast = { initialDelay: "20 millis", maxDelay: "50 millis" } as const

describe("events.watch reconnected before any event was delivered", () => {
  it.live("a follower of a category with no event yet (limit 1) gets all 3 published while it was away", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const proxy = yield* startTcpProxy(Number(new URL(server.origin).port))
      const client = yield* clientFor(`${proxy.origin}/api/v1`, server.apiKey)
      // Other categories have events (the watch starts from the newest of them); `health` has none: no routes.
      yield* server.events.publish(testEvent("before"))
      const away = yield* Deferred.make<void>()
      const lost = yield* Queue.unbounded<Disconnected>()
      const values = yield* Queue.unbounded<Event>()
      const fiber = yield* client.events
        .watch(
          { category: "health", limit: 1 },
          {
            reconnect: {
              ...fast,
              onDisconnect: (notice) => Effect.andThen(Queue.offer(lost, notice), Deferred.await(away))
            }
          }
        )
        .pipe(
          Stream.runForEach((event) => Queue.offer(values, event)),
          Effect.forkChild
        )
      yield* eventually(() => proxy.upgraded() === 1, "the watch's WebSocket is open")
      proxy.cut()
      assert.strictEqual((yield* Queue.take(lost)).attempt, 1)
      for (const label of ["h1", "h2", "h3"]) yield* server.events.publish(testEvent(label, "health"))
      yield* Deferred.succeed(away, undefined)
      yield* server.events.publish(testEvent("h4", "health"))
      const received = yield* takeUntil(values, "h4")
      yield* Fiber.interrupt(fiber)
      assert.deepStrictEqual(received.map(labelOf), ["h1", "h2", "h3", "h4"])
    }).pipe(Effect.scoped)
  )
})

/** The query of each of the first two upgrades of an events watch whose first connection is lost before any event. */
const reconnectQueries = (newestEventId: Effect.Effect<string | undefined>, query: Record<string, unknown>) =>
  Effect.gen(function* () {
    const server = yield* startFakeServer()
    const streams = makeStreams({ baseUrl: server.origin, newestEventId })
    const fiber = yield* streams.watchEvents(query, { reconnect: fast }).pipe(Stream.runDrain, Effect.forkChild)
    const first = yield* nextConnection(server, fiber)
    first.ws.terminate()
    const second = yield* nextConnection(server, fiber)
    yield* Fiber.interrupt(fiber)
    return [first, second].map((c) => Object.fromEntries(new URL(c.url, server.origin).searchParams))
  }).pipe(Effect.scoped)

const cursor = v7()
const own = v7()
const notAsked = Effect.die(new Error("the newest event was asked for"))

describe("the request of that reconnect", () => {
  it.live("resumes after the newest event of any category when the watch started, with the query's filter", () =>
    Effect.gen(function* () {
      const [first, second] = yield* reconnectQueries(Effect.succeed(cursor), { category: "health", limit: 1 })
      assert.deepStrictEqual(first, { category: "health", limit: "1" })
      assert.deepStrictEqual(second, { category: "health", limit: "1", since: cursor })
    })
  )

  it.live("after an empty history, asks again with the largest limit: every event it holds came after the start", () =>
    Effect.gen(function* () {
      const [first, second] = yield* reconnectQueries(Effect.succeed(undefined), { category: "health", limit: 1 })
      assert.deepStrictEqual(first, { category: "health", limit: "1" })
      assert.deepStrictEqual(second, { category: "health", limit: "1000" })
    })
  )

  it.live("a watch from its own since resumes from it, without asking for the newest event", () =>
    Effect.gen(function* () {
      const [first, second] = yield* reconnectQueries(notAsked, { since: own })
      assert.deepStrictEqual([first, second], [{ since: own }, { since: own }])
    })
  )

  it.live("a bad query fails with its SchemaError before the newest event is asked for", () =>
    Effect.gen(function* () {
      const streams = makeStreams({ baseUrl: "http://127.0.0.1:9", newestEventId: notAsked })
      const error = yield* Effect.flip(Stream.runDrain(streams.watchEvents({ limit: 0 }, { reconnect: fast })))
      assert.strictEqual(error._tag, "SchemaError")
    })
  )

  it.live("a watch without reconnect does not ask for the newest event", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const fiber = yield* makeStreams({ baseUrl: server.origin, newestEventId: notAsked })
        .watchEvents({ category: "health" })
        .pipe(Stream.runDrain, Effect.forkChild)
      ;(yield* nextConnection(server, fiber)).ws.terminate()
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.strictEqual(error._tag, "WebSocketClosed")
    }).pipe(Effect.scoped)
  )
})
