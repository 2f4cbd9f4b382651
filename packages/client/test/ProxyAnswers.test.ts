import { assert, describe, it } from "@effect/vitest"
import {
  type Disconnected,
  type Event,
  GatehouseClient,
  isRetryable,
  type Reconnected,
  WebSocketClosed
} from "@gatehouse-edge/client"
import { Cause, Deferred, Effect, Exit, Fiber, Queue, Stream } from "effect"
import { HttpClientError } from "effect/http"
import { labelOf, takeUntil, testEvent } from "../../../test/support/TestEvents.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { clientFor } from "./support/Clients.js"
import { type Refusal, startFakeServer } from "./support/FakeServer.js"
import { startReverseProxy } from "./support/ReverseProxy.js"
import { failureOf } from "./support/StreamFailure.js"

// Upgrades answered by what stands in front of the server (a reverse proxy while its upstream restarts, an auth
// proxy's login page, a rate limiter): statuses the contract declares or not, with a body that is not its error.

const html = (status: number): Refusal => ({
  status,
  body: "<html><body>not the API</body></html>",
  contentType: "text/html"
})

const clientOf = (origin: string) =>
  Effect.service(GatehouseClient).pipe(Effect.provide(GatehouseClient.layer({ baseUrl: origin, apiKey: "gh_t_k" })))

/** The status of the answer an `HttpClientError` carries; a test failure for any other error. */
const statusOf = (error: unknown) => {
  assert.isTrue(HttpClientError.isHttpClientError(error), `an HttpClientError, got ${String(error)}`)
  return (error as HttpClientError.HttpClientError).response?.status
}

describe("a refused upgrade whose body is not the API's error body", () => {
  it.live("fails the stream with an HttpClientError carrying the status, for every status a stream declares", () =>
    Effect.gen(function* () {
      for (const [stream, status] of [
        ["health", 400],
        ["health", 401],
        ["health", 403],
        ["health", 413],
        ["health", 429],
        ["events", 404],
        ["events", 410]
      ] as const) {
        const server = yield* startFakeServer({ refuse: () => html(status) })
        const client = yield* clientOf(server.origin)
        const error =
          stream === "health" ? yield* failureOf(client.health.watch()) : yield* failureOf(client.events.watch())
        assert.strictEqual(statusOf(error), status, `${stream} ${status}`)
        assert.strictEqual(isRetryable(error), status === 429, `${stream} ${status} retryable`)
      }
    }).pipe(Effect.scoped)
  )

  it.live("so does a JSON body of another shape (an auth proxy's), which decoding reads", () =>
    Effect.gen(function* () {
      for (const status of [401, 403, 429]) {
        const server = yield* startFakeServer({
          refuse: () => ({ status, body: JSON.stringify({ message: "sign in at the portal" }) })
        })
        const client = yield* clientOf(server.origin)
        assert.strictEqual(statusOf(yield* failureOf(client.health.watch())), status)
      }
    }).pipe(Effect.scoped)
  )

  it.live("a rate limiter's 429 page is retried by a reconnecting stream, which then goes on", () =>
    Effect.gen(function* () {
      let refusal: Refusal | undefined
      const server = yield* startFakeServer({ refuse: () => refusal })
      const client = yield* clientOf(server.origin)
      const lost = yield* Queue.unbounded<Disconnected>()
      const frames = yield* Queue.unbounded<unknown>()
      const fiber = yield* client.health
        .watch({
          reconnect: {
            initialDelay: "20 millis",
            maxDelay: "100 millis",
            onDisconnect: (notice) => {
              // Retried once: the limiter lets the next attempt through.
              if (notice.attempt === 2) refusal = undefined
              return Queue.offer(lost, notice)
            }
          }
        })
        .pipe(
          Stream.runForEach((frame) => Queue.offer(frames, frame)),
          Effect.forkChild
        )
      const first = yield* Queue.take(server.connections)
      first.ws.send(JSON.stringify({}))
      assert.deepStrictEqual(yield* Queue.take(frames), {})
      refusal = html(429)
      first.ws.terminate()
      const next = (what: string) =>
        Effect.raceFirst(
          Queue.take(lost),
          Effect.flatMap(Fiber.await(fiber), (exit) =>
            Effect.die(
              new Error(`the stream ended before ${what}: ${Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "done"}`)
            )
          )
        )
      assert.instanceOf((yield* next("the connection was lost")).error, WebSocketClosed)
      assert.strictEqual(statusOf((yield* next("the 429 was retried")).error), 429)
      const second = yield* Queue.take(server.connections)
      const map = { app: { status: "healthy", latency_ms: 1, uptime_s: 2, last_check: null } }
      second.ws.send(JSON.stringify(map))
      assert.deepStrictEqual(yield* Queue.take(frames), map)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.scoped)
  )
})

describe("a reverse proxy's own error page", () => {
  it.live("502, 503 and 504 (undeclared, in HTML) are retryable; a 200 that does not decode is not", () =>
    Effect.gen(function* () {
      for (const status of [502, 503, 504, 200]) {
        const server = yield* startFakeServer({ refuse: () => html(status) })
        const client = yield* clientOf(server.origin)
        const error = yield* failureOf(client.events.watch())
        assert.strictEqual(statusOf(error), status)
        assert.strictEqual(isRetryable(error), status !== 200, `${status} retryable`)
      }
    }).pipe(Effect.scoped)
  )

  it.live("events.watch with reconnect waits out the proxy's 502s and resumes: no event twice, none missed", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const proxy = yield* startReverseProxy(Number(new URL(server.origin).port))
      const client = yield* clientFor(proxy.origin, server.apiKey)
      const lost = yield* Queue.unbounded<Disconnected>()
      const back = yield* Queue.unbounded<Reconnected>()
      const recovered = yield* Deferred.make<void>()
      const values = yield* Queue.unbounded<Event>()
      const fiber = yield* client.events
        .watch(
          {},
          {
            reconnect: {
              initialDelay: "20 millis",
              maxDelay: "100 millis",
              // The attempt after the proxy's 502 waits until the test brought the upstream back.
              onDisconnect: (notice) =>
                Effect.andThen(
                  Queue.offer(lost, notice),
                  notice.attempt === 2 ? Deferred.await(recovered) : Effect.void
                ),
              onReconnect: (notice) => Queue.offer(back, notice)
            }
          }
        )
        .pipe(
          Stream.runForEach((event) => Queue.offer(values, event)),
          Effect.forkChild
        )
      const publish = (label: string) => server.events.publish(testEvent(label))
      const nextNotice = (what: string) =>
        Effect.raceFirst(
          Queue.take(lost),
          Effect.flatMap(Fiber.await(fiber), (exit) =>
            Effect.die(
              new Error(`the stream ended before ${what}: ${Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "done"}`)
            )
          )
        )

      for (const label of ["a1", "a2"]) yield* publish(label)
      const before = yield* takeUntil(values, "a2")
      proxy.down(502)
      assert.instanceOf((yield* nextNotice("the tunnel was cut")).error, WebSocketClosed)
      const refused = yield* nextNotice("the proxy's 502 was retried")
      assert.strictEqual(refused.attempt, 2)
      assert.strictEqual(statusOf(refused.error), 502)
      for (const label of ["w1", "w2"]) yield* publish(label)
      proxy.up()
      yield* Deferred.succeed(recovered, undefined)
      assert.deepStrictEqual(yield* Queue.take(back), { attempt: 2, resumption: "exact" })
      yield* publish("l1")
      const after = yield* takeUntil(values, "l1")
      yield* Fiber.interrupt(fiber)

      const received = [...before, ...after]
      const history = yield* client.events.list({ query: { limit: 1000 } })
      assert.deepStrictEqual(
        received.map((e) => e.id),
        history
          .map((e) => e.id)
          .filter((id) => id <= received.at(-1)!.id)
          .sort(),
        "every event of the history, each once, in order"
      )
      assert.deepStrictEqual(
        received.map(labelOf).filter((l) => /^[awl]\d$/.test(l)),
        ["a1", "a2", "w1", "w2", "l1"]
      )
    }).pipe(Effect.scoped)
  )
})
