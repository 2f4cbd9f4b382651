import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Deferred, Effect, Exit, Stream } from "effect"
import { AuthServiceCallError, authServiceEffectClient, makeAuthServiceClient } from "../src/client.js"
import type { ListAuthRequestsRequest__Output } from "../src/gen/gatehouse/v1/ListAuthRequestsRequest.js"
import { fakeAuthServer, pendingRequest } from "./support/FakeAuthServer.js"

// The typed client against servers that stop answering without closing anything (a frozen process, a power loss
// on the way): its waits are bounded, and what it refuses to send never leaves it.

const authId = "ghreq_AAAAAAAAAAAAAAAAAAAAAAAA"

const clientTo = (address: string, options: Parameters<typeof authServiceEffectClient>[1]) =>
  Effect.gen(function* () {
    const raw = makeAuthServiceClient({ address, apiKey: "gh_test", insecure: true })
    yield* Effect.addFinalizer(() => Effect.sync(() => raw.close()))
    return authServiceEffectClient(raw, options)
  })

describe("the typed gRPC client's waits", () => {
  it.live("a watch whose server sends one state then goes silent fails UNAVAILABLE, and its call is cancelled", () =>
    Effect.gen(function* () {
      const cancelled = yield* Deferred.make<void>()
      const server = yield* fakeAuthServer({
        WatchAuthRequest: (call) => {
          call.write(pendingRequest(call.request.authId))
          call.on("cancelled", () => Deferred.doneUnsafe(cancelled, Exit.void))
        }
      })
      const client = yield* clientTo(server.address, { watchSilenceMs: 300 })
      const seen: Array<string> = []
      const error = yield* client.watch(authId).pipe(
        Stream.runForEach((request) => Effect.sync(() => seen.push(request.state))),
        Effect.flip
      )
      assert.deepStrictEqual(seen, ["pending"])
      assert.instanceOf(error, AuthServiceCallError)
      assert.strictEqual(error.statusName, "UNAVAILABLE")
      assert.strictEqual(error.message, "no message from the server for 0.3 s")
      // Given up on here, the call is cancelled on the wire too: the server does not keep it.
      yield* Deferred.await(cancelled)
    }).pipe(Effect.scoped, Effect.timeout("10 seconds"))
  )

  it.live("a watch whose server keeps sending within the silence limit goes on", () =>
    Effect.gen(function* () {
      const server = yield* fakeAuthServer({
        WatchAuthRequest: (call) => {
          // Five heartbeats 100 ms apart, then the final state: each wait is shorter than the limit, the whole longer.
          let sent = 0
          const timer = setInterval(() => {
            sent++
            if (sent <= 5) return void call.write(pendingRequest(call.request.authId))
            clearInterval(timer)
            call.write({ ...pendingRequest(call.request.authId), state: "AUTH_REQUEST_STATE_APPROVED" })
            call.end()
          }, 100)
          call.on("cancelled", () => clearInterval(timer))
        }
      })
      const client = yield* clientTo(server.address, { watchSilenceMs: 400 })
      const states = yield* Stream.runCollect(client.watch(authId))
      assert.deepStrictEqual(
        states.map((request) => request.state),
        ["pending", "pending", "pending", "pending", "pending", "approved"]
      )
    }).pipe(Effect.scoped, Effect.timeout("10 seconds"))
  )

  it.live("a unary call whose server never answers fails DEADLINE_EXCEEDED at the call deadline, in one line", () =>
    Effect.gen(function* () {
      const server = yield* fakeAuthServer({ GetAuthRequest: () => {} })
      const client = yield* clientTo(server.address, { callTimeoutMs: 300 })
      const error = yield* Effect.flip(client.get(authId))
      assert.instanceOf(error, AuthServiceCallError)
      assert.strictEqual(error.statusName, "DEADLINE_EXCEEDED")
      assert.strictEqual(error.message, "no answer within 0.3 s")
    }).pipe(Effect.scoped, Effect.timeout("10 seconds"))
  )

  it.effect("a list filter the server would refuse for its form is refused before it is sent", () =>
    Effect.gen(function* () {
      const received: Array<ListAuthRequestsRequest__Output> = []
      const server = yield* fakeAuthServer({
        ListAuthRequests: (call, callback) => {
          received.push(call.request)
          callback(null, { authRequests: [], nextPageToken: "" })
        }
      })
      const client = yield* clientTo(server.address, {})
      const refusals = yield* Effect.forEach(
        [
          { decided_after: "1" },
          { decided_after: "2026-01-02T03:04:05" },
          { decided_after: "2026-01-02" },
          { limit: 0 },
          { limit: -1 },
          { limit: 1001 },
          { limit: 1.5 }
        ],
        (filter) =>
          client.list(filter).pipe(
            Effect.match({
              onSuccess: () => `sent ${JSON.stringify(filter)}`,
              onFailure: (error) => `${error.statusName}: ${error.message}`
            })
          )
      )
      const instant =
        "INVALID_ARGUMENT: decided_after: must be an RFC 3339 time with a zone, such as 2026-01-02T03:04:05Z"
      const limit = "INVALID_ARGUMENT: limit: must be a whole number from 1 to 1000"
      assert.deepStrictEqual(refusals, [instant, instant, instant, limit, limit, limit, limit])
      assert.deepStrictEqual(received, [])
      // The refusal carries the issues as the server's would.
      const refused = yield* Effect.flip(client.list({ limit: 0 }))
      assert.deepStrictEqual(refused.details, [{ path: ["limit"], message: "must be a whole number from 1 to 1000" }])
      // A time with an offset is that instant, whatever the client's zone.
      yield* client.list({ decided_after: "2026-01-02T03:04:05.250+02:00", limit: 1000 })
      assert.deepStrictEqual(
        received.map((request) => [request.decidedAfter, request.pageSize]),
        [[{ seconds: String(Date.UTC(2026, 0, 2, 1, 4, 5) / 1000), nanos: 250_000_000 }, 1000]]
      )
    }).pipe(Effect.scoped)
  )

  it("a connection failure's message does not end with grpc-js's empty resolution note", () => {
    const failure = Object.assign(new Error("14 UNAVAILABLE: ..."), {
      code: grpc.status.UNAVAILABLE,
      details: "No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1. Resolution note: ",
      metadata: new grpc.Metadata()
    })
    const error = AuthServiceCallError.fromServiceError(failure)
    assert.strictEqual(error.message, "No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1")
  })
})
