import { assert, describe, it } from "@effect/vitest"
import {
  AuthServiceCallError,
  authServiceEffectClient,
  makeAuthServiceClient
} from "@gatehouse-edge/transport-grpc/client"
import * as grpc from "@grpc/grpc-js"
import { Console, Effect, Fiber, Random, Stream } from "effect"
import { TestClock } from "effect/testing"
import { fakeAuthServer, pendingRequest } from "../../transport-grpc/test/support/FakeAuthServer.js"
import { callErrorLine } from "../src/commands/GrpcConnection.js"
import { reconnectingWatch, withoutRepeats } from "../src/commands/GrpcReconnecting.js"

// `gatehouse auth watch`'s reconnection over gRPC, on the test clock: the delays it announces on stderr. Random is
// pinned just under 1, so each delay is its cap (the backoff draws below it).

const unavailable = new AuthServiceCallError({
  status: grpc.status.UNAVAILABLE,
  code: "unavailable",
  message: "server shutting down",
  requestId: undefined,
  details: undefined
})

/** Runs `watch` through reconnectingWatch until it has given `states` states; the lines it printed on stderr. */
const noticesOf = (watch: () => Stream.Stream<number, AuthServiceCallError>, states: number) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const console = { ...globalThis.console, error: (...args: ReadonlyArray<unknown>) => lines.push(args.join(" ")) }
    const fiber = yield* reconnectingWatch(watch).pipe(
      Stream.take(states),
      Stream.runCollect,
      Effect.provideService(Console.Console, console),
      Effect.provideService(Random.Random, { nextIntUnsafe: () => 0, nextDoubleUnsafe: () => 0.9999 }),
      Effect.forkChild
    )
    // Far past every delay: the test clock runs each sleep as it comes.
    yield* TestClock.adjust("10 minutes")
    yield* Fiber.join(fiber)
    return lines.filter((line) => line.includes("reconnecting in")).map((line) => line.replace(/.* in /, ""))
  })

describe("auth watch over gRPC: reconnecting", () => {
  it.effect("a server that drops every call at once is retried ever more slowly (0.5 s doubling)", () =>
    Effect.gen(function* () {
      let calls = 0
      const dropsAtOnce = () => Stream.concat(Stream.make(++calls), Stream.fail(unavailable))
      const delays = yield* noticesOf(dropsAtOnce, 6)
      assert.deepStrictEqual(delays, ["0.5 s", "1.0 s", "2.0 s", "4.0 s", "8.0 s"])
    })
  )

  it.effect("a call that stayed up 30 s starts the backoff over", () =>
    Effect.gen(function* () {
      let calls = 0
      const watch = () => {
        const call = ++calls
        // The third call stays up 40 s before it is dropped; the others are dropped at once.
        const dropped = call === 3 ? Stream.fromEffectDrain(Effect.sleep("40 seconds")) : Stream.empty
        return Stream.make(call).pipe(Stream.concat(dropped), Stream.concat(Stream.fail(unavailable)))
      }
      const delays = yield* noticesOf(watch, 5)
      assert.deepStrictEqual(delays, ["0.5 s", "1.0 s", "0.5 s", "1.0 s"])
    })
  )

  it.live("a server that goes silent without closing the call is given up on, then reconnected to", () =>
    Effect.gen(function* () {
      let calls = 0
      // The first call gets the pending state and then nothing, ever (a frozen server); the second, the verdict.
      const server = yield* fakeAuthServer({
        WatchAuthRequest: (call) => {
          calls++
          if (calls === 1) return void call.write(pendingRequest(call.request.authId))
          call.write({ ...pendingRequest(call.request.authId), state: "AUTH_REQUEST_STATE_APPROVED" })
          call.end()
        }
      })
      const raw = makeAuthServiceClient({ address: server.address, apiKey: "gh_test", insecure: true })
      yield* Effect.addFinalizer(() => Effect.sync(() => raw.close()))
      const client = authServiceEffectClient(raw, { watchSilenceMs: 300 })
      const lines: Array<string> = []
      const console = { ...globalThis.console, error: (...args: ReadonlyArray<unknown>) => lines.push(args.join(" ")) }
      const states = yield* reconnectingWatch(() => client.watch("ghreq_AAAAAAAAAAAAAAAAAAAAAAAA")).pipe(
        Stream.runCollect,
        Effect.provideService(Console.Console, console)
      )
      assert.deepStrictEqual(
        states.map((request) => request.state),
        ["pending", "approved"]
      )
      assert.strictEqual(calls, 2)
      assert.match(
        lines[0] ?? "",
        /^gatehouse: connection lost \(no message from the server for 0\.3 s\), reconnecting in/
      )
      assert.strictEqual(lines[1], "gatehouse: reconnected")
    }).pipe(Effect.scoped, Effect.timeout("10 seconds"))
  )

  it.effect("without reconnecting, the server's heartbeats are not printed either", () =>
    Effect.gen(function* () {
      const states = yield* withoutRepeats(Stream.make("pending", "pending", "pending", "approved")).pipe(
        Stream.runCollect
      )
      assert.deepStrictEqual(states, ["pending", "approved"])
    })
  )

  it("a call that got no answer in time is one line naming the address", () => {
    const failure = (status: grpc.status, message: string, requestId?: string) =>
      new AuthServiceCallError({ status, code: "timeout", message, requestId, details: undefined })
    assert.strictEqual(
      callErrorLine(failure(grpc.status.DEADLINE_EXCEEDED, "no answer within 30 s"), "127.0.0.1:50443"),
      "gatehouse: the gRPC API at 127.0.0.1:50443 did not answer: no answer within 30 s"
    )
    // The server's own DEADLINE_EXCEEDED (it sent its request id) is its message.
    assert.strictEqual(
      callErrorLine(failure(grpc.status.DEADLINE_EXCEEDED, "store timed out", "r-1"), "127.0.0.1:50443"),
      "gatehouse: store timed out (DEADLINE_EXCEEDED)"
    )
  })

  it("a plaintext call a TLS-only server dropped says how to call it with TLS; one nothing answered does not", () => {
    const unavailable = (message: string) =>
      new AuthServiceCallError({
        status: grpc.status.UNAVAILABLE,
        code: "unavailable",
        message,
        requestId: undefined,
        details: undefined
      })
    const dropped = unavailable("No connection established. Last error: Failed to connect (2026-11-28T10:22:33.961Z)")
    assert.strictEqual(
      callErrorLine(dropped, "127.0.0.1:50443", true),
      "gatehouse: cannot reach the gRPC API at 127.0.0.1:50443: No connection established. Last error: Failed to " +
        "connect (2026-11-28T10:22:33.961Z)\ngatehouse: this call was made without TLS; if the server serves TLS " +
        "(grpc.tls), add --tls (or --ca <file> for a private CA)"
    )
    // Over TLS already, or nothing listening: no such hint.
    assert.notInclude(callErrorLine(dropped, "127.0.0.1:50443", false), "--tls")
    const refused = unavailable("No connection established. Last error: connect ECONNREFUSED 127.0.0.1:50443")
    assert.notInclude(callErrorLine(refused, "127.0.0.1:50443", true), "--tls")
  })
})
