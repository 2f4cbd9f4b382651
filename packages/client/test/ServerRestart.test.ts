import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import {
  createGatehouseClient,
  type Disconnected,
  EventsTrimmed,
  type GatehouseClientShape,
  MissingScope,
  type Reconnected,
  Unauthenticated,
  WebSocketClosed
} from "@gatehouse-edge/client"
import { Deferred, Effect, Fiber, Queue, Stream } from "effect"
import { HttpClientError } from "effect/http"
import { startRestartableServer } from "../../../test/support/RestartableServer.js"
import { labelOf, takeUntil, testEvent } from "../../../test/support/TestEvents.js"
import { clientFor, routeFile } from "./support/Clients.js"

// Streams across a real restart: the whole server, in this process, stopped as a shutdown does (its streams close
// with 1001, then the port refuses connections) and started again on the same port with the same data and routes.
// Where the test must act while the client is away (restart, publish, revoke), an `onDisconnect` of the client
// waits on it: the order is set by the test, never by timing.

const fast = { initialDelay: "50 millis", maxDelay: "200 millis" } as const

/** Notices of a reconnecting stream; `hold(n)` makes attempt n wait until the gate opens. */
const notices = Effect.gen(function* () {
  const lost = yield* Queue.unbounded<Disconnected>()
  const back = yield* Queue.unbounded<Reconnected>()
  const gates = new Map<number, Deferred.Deferred<void>>()
  const hold = (attempt: number) =>
    Effect.tap(Deferred.make<void>(), (gate) => Effect.sync(() => gates.set(attempt, gate)))
  const options = {
    ...fast,
    onDisconnect: (notice: Disconnected) => {
      const gate = gates.get(notice.attempt)
      return Effect.andThen(Queue.offer(lost, notice), gate === undefined ? Effect.void : Deferred.await(gate))
    },
    onReconnect: (notice: Reconnected) => Queue.offer(back, notice)
  }
  return { lost, back, hold, options }
})

/** Runs `stream` in a fiber, its values into a queue. */
const collect = <A, E>(stream: Stream.Stream<A, E>) =>
  Effect.gen(function* () {
    const values = yield* Queue.unbounded<A>()
    const fiber = yield* stream.pipe(
      Stream.runForEach((value) => Queue.offer(values, value)),
      Effect.forkChild
    )
    return { values, fiber }
  })

const createKey = (admin: GatehouseClientShape, name: string, scopes: ReadonlyArray<string>) =>
  Effect.map(admin.access.createApiKey({ payload: { name, scopes: scopes as never } }), (created) => created.key)

describe("events.watch with reconnect, across a server restart", () => {
  it.live("resumes after the last event delivered: none twice, none missed, those published while away too", () =>
    Effect.gen(function* () {
      const server = yield* startRestartableServer()
      const client = yield* clientFor(server.origin, server.apiKey)
      const { lost, back, hold, options } = yield* notices
      const stopped = yield* hold(1)
      const returned = yield* hold(2)
      const { values, fiber } = yield* collect(client.events.watch({}, { reconnect: options }))
      const publish = (label: string) => Effect.flatMap(server.events, (bus) => bus.publish(testEvent(label)))

      for (const label of ["p1", "p2", "p3"]) yield* publish(label)
      const before = yield* takeUntil(values, "p3")
      yield* server.stop
      yield* Deferred.succeed(stopped, undefined)
      // The server went away (1001), then the port refused the first attempt: both retried.
      const away = yield* Queue.take(lost)
      assert.instanceOf(away.error, WebSocketClosed)
      assert.strictEqual((away.error as WebSocketClosed).code, 1001)
      const refused = yield* Queue.take(lost)
      assert.strictEqual(refused.attempt, 2)
      assert.isTrue(HttpClientError.isHttpClientError(refused.error), String(refused.error))

      // Back on the same port and data, with events the client has not seen, before it returns.
      yield* server.start
      for (const label of ["w1", "w2", "w3"]) yield* publish(label)
      yield* Deferred.succeed(returned, undefined)
      assert.deepStrictEqual(yield* Queue.take(back), { attempt: 2, resumption: "exact" })
      yield* publish("l1")
      const after = yield* takeUntil(values, "l1")
      yield* Fiber.interrupt(fiber)

      const received = [...before, ...after]
      const history = yield* client.events.list({ query: { limit: 1000 } })
      const expected = history.filter((e) => e.id <= received.at(-1)!.id).map((e) => e.id)
      assert.deepStrictEqual(
        received.map((e) => e.id),
        expected.sort(),
        "every event of the history, each once, in order"
      )
      assert.deepStrictEqual(
        received.map(labelOf).filter((l) => /^[pwl]\d$/.test(l)),
        ["p1", "p2", "p3", "w1", "w2", "w3", "l1"]
      )
    }).pipe(Effect.scoped)
  )

  it.live("fails with EventsTrimmed when the history dropped what came after the last event: never a silent gap", () =>
    Effect.gen(function* () {
      const server = yield* startRestartableServer({ configYaml: "events:\n  history: 10\n" })
      const client = yield* clientFor(server.origin, server.apiKey)
      const { lost, hold, options } = yield* notices
      const returned = yield* hold(1)
      const { values, fiber } = yield* collect(client.events.watch({}, { reconnect: options }))
      const publish = (label: string) => Effect.flatMap(server.events, (bus) => bus.publish(testEvent(label)))
      yield* publish("seen")
      yield* takeUntil(values, "seen")
      yield* server.stop
      yield* server.start
      for (let i = 0; i < 30; i++) yield* publish(`n${i}`)
      yield* Deferred.succeed(returned, undefined)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, EventsTrimmed)
      yield* Queue.take(lost)
      assert.strictEqual(yield* Queue.size(lost), 0, "the refusal itself was not retried")
      assert.strictEqual(yield* Queue.size(values), 0, "no event after the gap was delivered")
    }).pipe(Effect.scoped)
  )

  it.live("the promise client's AsyncIterable resumes the same way", () =>
    Effect.gen(function* () {
      const server = yield* startRestartableServer()
      const client = createGatehouseClient({ baseUrl: server.origin, apiKey: server.apiKey })
      yield* Effect.addFinalizer(() => Effect.promise(() => client.close()))
      const publish = (label: string) => Effect.flatMap(server.events, (bus) => bus.publish(testEvent(label)))
      yield* publish("p1")
      const seen: Array<string> = []
      const notices: Array<string> = []
      yield* Effect.promise(async () => {
        const watched = client.events.watch(
          {},
          {
            reconnect: {
              ...fast,
              onDisconnect: (n) => void notices.push(`lost ${n.attempt}`),
              onReconnect: (n) => void notices.push(`back ${n.attempt} ${n.resumption}`)
            }
          }
        )
        for await (const event of watched) {
          seen.push(labelOf(event))
          if (labelOf(event) === "p1") {
            // Restarted under the loop: the next `next()` meets the closed socket, and a new one after it.
            await Effect.runPromise(Effect.andThen(server.stop, server.start))
            await Effect.runPromise(publish("p2"))
          }
          if (labelOf(event) === "p2") break
        }
      })
      assert.deepStrictEqual(
        seen.filter((l) => /^p\d$/.test(l)),
        ["p1", "p2"]
      )
      assert.strictEqual(notices.at(-1), `back ${notices.length - 1} exact`)
      assert.isTrue(notices[0] === "lost 1", notices.join(", "))
    }).pipe(Effect.scoped)
  )
})

describe("a snapshot stream with reconnect, across a server restart", () => {
  it.live("routes.watch subscribes again and goes on with the changes made after", () =>
    Effect.gen(function* () {
      const server = yield* startRestartableServer()
      const client = yield* clientFor(server.origin, server.apiKey)
      const { back, options } = yield* notices
      const { values, fiber } = yield* collect(client.routes.watch({ reconnect: options }))
      assert.deepStrictEqual(yield* Queue.take(values), [])
      yield* server.stop
      yield* server.start
      assert.strictEqual((yield* Queue.take(back)).resumption, "snapshot")
      fs.writeFileSync(path.join(server.routesDir, "app.yml"), routeFile("app"))
      // The same empty list again right after the reconnect is not delivered: the next list is the change.
      const next = yield* Queue.take(values)
      assert.deepStrictEqual(
        next.map((r) => r.alias),
        ["app"]
      )
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.scoped)
  )
})

describe("refusals are not retried", () => {
  it.live("a key without the scope: MissingScope (403) at once, with reconnect on", () =>
    Effect.gen(function* () {
      const server = yield* startRestartableServer()
      const admin = yield* clientFor(server.origin, server.apiKey)
      const key = yield* createKey(admin, "routes-only", ["routes:read"])
      const client = yield* clientFor(server.origin, key)
      const { lost, options } = yield* notices
      const error = yield* Effect.flip(Stream.runDrain(client.events.watch({}, { reconnect: options })))
      assert.instanceOf(error, MissingScope)
      assert.strictEqual(yield* Queue.size(lost), 0)
    }).pipe(Effect.scoped)
  )

  it.live("a key revoked while streaming: the 1008 close ends the stream", () =>
    Effect.gen(function* () {
      const server = yield* startRestartableServer()
      const admin = yield* clientFor(server.origin, server.apiKey)
      const client = yield* clientFor(server.origin, yield* createKey(admin, "watcher", ["events:read"]))
      const { lost, options } = yield* notices
      const { values, fiber } = yield* collect(client.events.watch({}, { reconnect: options }))
      yield* Effect.flatMap(server.events, (bus) => bus.publish(testEvent("open")))
      yield* takeUntil(values, "open")
      yield* admin.access.revokeApiKey({ params: { name: "watcher" } })
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, WebSocketClosed)
      assert.strictEqual((error as WebSocketClosed).code, 1008)
      assert.strictEqual(yield* Queue.size(lost), 0)
    }).pipe(Effect.scoped)
  )

  it.live("a key revoked while the client was away: the reconnect's 401 ends the stream", () =>
    Effect.gen(function* () {
      const server = yield* startRestartableServer()
      const admin = yield* clientFor(server.origin, server.apiKey)
      const client = yield* clientFor(server.origin, yield* createKey(admin, "watcher", ["events:read"]))
      const { lost, hold, options } = yield* notices
      const revoked = yield* hold(1)
      const { values, fiber } = yield* collect(client.events.watch({}, { reconnect: options }))
      yield* Effect.flatMap(server.events, (bus) => bus.publish(testEvent("open")))
      yield* takeUntil(values, "open")
      yield* server.stop
      yield* server.start
      yield* admin.access.revokeApiKey({ params: { name: "watcher" } })
      yield* Deferred.succeed(revoked, undefined)
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, Unauthenticated)
      assert.strictEqual(yield* Queue.size(lost), 1, "only the restart's 1001 was retried")
    }).pipe(Effect.scoped)
  )
})
