import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient } from "@gatehouse-edge/client"
import { Cause, Effect, Exit, Fiber, Queue, Stream } from "effect"
import { HttpClientError } from "effect/http"
import { startFakeServer } from "./support/FakeServer.js"

// A base URL or a key that the plain calls take or refuse: a stream takes or refuses it the same way, as a failure
// of the same kind, never a defect.

const clientOf = (baseUrl: string, apiKey = "gh_t_k") =>
  Effect.service(GatehouseClient).pipe(Effect.provide(GatehouseClient.layer({ baseUrl, apiKey })))

/** The reason of the `HttpClientError` an effect failed with; a test failure when it died or succeeded instead. */
const reasonOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(effect)
    if (Exit.isSuccess(exit)) return yield* Effect.die(new Error("expected a failure, it succeeded"))
    const failure = exit.cause.reasons.find(Cause.isFailReason)
    if (failure === undefined)
      return yield* Effect.die(new Error(`expected a failure, got ${Cause.pretty(exit.cause)}`))
    assert.isTrue(HttpClientError.isHttpClientError(failure.error), String(failure.error))
    return (failure.error as HttpClientError.HttpClientError).reason
  })

describe("a base URL without a scheme", () => {
  it.live("127.0.0.1:<port> makes no URL: the stream fails with InvalidUrlError, as the plain call", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const client = yield* clientOf(server.origin.replace("http://", ""))
      const plain = yield* reasonOf(client.health.get())
      const stream = yield* reasonOf(Stream.runDrain(client.health.watch()))
      assert.instanceOf(plain, HttpClientError.InvalidUrlError)
      assert.instanceOf(stream, HttpClientError.InvalidUrlError)
      assert.include(stream.message, "/api/v1/health")
    }).pipe(Effect.scoped)
  )

  it.live("localhost:<port> parses with the scheme 'localhost:': a TransportError, as the plain call", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const client = yield* clientOf(server.origin.replace("http://127.0.0.1", "localhost"))
      assert.instanceOf(yield* reasonOf(client.health.get()), HttpClientError.TransportError)
      assert.instanceOf(yield* reasonOf(Stream.runDrain(client.health.watch())), HttpClientError.TransportError)
    }).pipe(Effect.scoped)
  )
})

describe("an API key with whitespace", () => {
  it.live("a trailing newline (a key read from a file) is left out of the header, as fetch does", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const client = yield* clientOf(server.origin, "gh_t_k\n")
      const fiber = yield* client.health.watch().pipe(Stream.runHead, Effect.forkChild)
      const connection = yield* Effect.raceFirst(
        Queue.take(server.connections),
        Effect.flatMap(Fiber.await(fiber), (exit) =>
          Effect.die(
            new Error(
              `the stream ended without connecting: ${Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "done"}`
            )
          )
        )
      )
      assert.strictEqual(connection.headers.authorization, "Bearer gh_t_k")
      connection.ws.send(JSON.stringify({}))
      yield* Fiber.join(fiber)
    }).pipe(Effect.scoped)
  )

  it.live("a newline inside the key cannot be sent: a TransportError, as the plain call", () =>
    Effect.gen(function* () {
      const server = yield* startFakeServer()
      const client = yield* clientOf(server.origin, "gh_t\nk")
      assert.instanceOf(yield* reasonOf(client.health.get()), HttpClientError.TransportError)
      assert.instanceOf(yield* reasonOf(Stream.runDrain(client.health.watch())), HttpClientError.TransportError)
    }).pipe(Effect.scoped)
  )
})
