import { assert, describe, it } from "@effect/vitest"
import { EventNotFound, EventsTrimmed, WebSocketClosed } from "@gatehouse-edge/client"
import { Effect, Fiber, Queue } from "effect"
import { v7 } from "uuid"
import { makeStreams } from "../src/GatehouseStreams.js"
import { startFakeServer } from "./support/FakeServer.js"
import { failureOf } from "./support/StreamFailure.js"

// A resume whose replay the trimming overtakes is refused after the upgrade: the server closes the stream with 1008
// and the error's message as the reason (its session does so for every error). Played here by a fake server.

const anEvent = (id: string) =>
  JSON.stringify({
    id,
    timestamp: "2026-01-01T00:00:00.000Z",
    level: "info",
    category: "api_key",
    action: "revoked",
    data: { name: "k", by: "admin" }
  })

/** How an events watch (with reconnect, so a retry would show) fails when the server closes with `code`/`reason`. */
const failureOnClose = (code: number, reason: (lastId: string) => string) =>
  Effect.gen(function* () {
    const server = yield* startFakeServer()
    const streams = makeStreams({ baseUrl: server.origin, newestEventId: Effect.succeed(undefined) })
    const retried: Array<unknown> = []
    const watch = streams.watchEvents({}, { reconnect: { onDisconnect: ({ error }) => void retried.push(error) } })
    const failure = yield* Effect.forkChild(failureOf(watch))
    const connection = yield* Queue.take(server.connections)
    const id = v7()
    connection.ws.send(anEvent(id))
    connection.ws.close(code, reason(id))
    const error = yield* Fiber.join(failure)
    assert.deepStrictEqual(retried, [], "not retried")
    return { error, id }
  }).pipe(Effect.scoped)

describe("an events stream closed with a resume error's message", () => {
  it.live("EventsTrimmed's fails the stream with EventsTrimmed, not retried", () =>
    Effect.gen(function* () {
      const { error, id } = yield* failureOnClose(
        1008,
        (since) => new EventsTrimmed({ since, oldest_id: null }).message
      )
      assert.instanceOf(error, EventsTrimmed)
      assert.deepStrictEqual([(error as EventsTrimmed).since, (error as EventsTrimmed).oldest_id], [id, null])
    })
  )

  it.live("EventNotFound's fails it with EventNotFound", () =>
    Effect.gen(function* () {
      const { error, id } = yield* failureOnClose(1008, (since) => new EventNotFound({ since }).message)
      assert.instanceOf(error, EventNotFound)
      assert.strictEqual((error as EventNotFound).since, id)
    })
  )

  it.live("any other 1008, or that message with another code, stays WebSocketClosed", () =>
    Effect.gen(function* () {
      const revoked = yield* failureOnClose(1008, () => "API key revoked")
      assert.instanceOf(revoked.error, WebSocketClosed)
      const other = yield* failureOnClose(4000, (since) => new EventNotFound({ since }).message)
      assert.instanceOf(other.error, WebSocketClosed)
      assert.strictEqual((other.error as WebSocketClosed).code, 4000)
    })
  )

  it.live("another stream closed with that message fails with WebSocketClosed: only the events stream reads it", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const streams = makeStreams({ baseUrl: server.origin, newestEventId: Effect.succeed(undefined) })
      const failure = yield* Effect.forkChild(failureOf(streams.watchHealth()))
      const connection = yield* Queue.take(server.connections)
      connection.ws.close(1008, new EventNotFound({ since: v7() }).message)
      assert.instanceOf(yield* Fiber.join(failure), WebSocketClosed)
    }).pipe(Effect.scoped)
  )
})
