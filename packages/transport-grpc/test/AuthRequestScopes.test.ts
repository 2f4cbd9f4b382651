import { assert, describe, it } from "@effect/vitest"
import { AuthRequestWaiterCount } from "@gatehouse-edge/core"
import * as grpc from "@grpc/grpc-js"
import { Effect, Fiber } from "effect"
import type { AuthServiceClient } from "../src/client.js"
import type { AuthRequest__Output } from "../src/gen/gatehouse/v1/AuthRequest.js"
import { call, clientOf, grpcServerLayer, keys, ok } from "./support/GrpcHarness.js"

const sshCheck = {
  kind: "AUTH_REQUEST_KIND_SSH_CHECK",
  sshCheck: { src: "127.0.0.1", dst: "db1", localUser: "root" }
}
const registration = {
  kind: "AUTH_REQUEST_KIND_REGISTRATION",
  registration: { machineKey: "mk-1", nodeKey: "nk-1", hostname: "laptop" }
}

type Created = { authRequest: AuthRequest__Output }
type Listed = { authRequests: Array<AuthRequest__Output> }

const PENDING = "AUTH_REQUEST_STATE_PENDING"
const APPROVED = "AUTH_REQUEST_STATE_APPROVED"

const create = (client: AuthServiceClient, request: object) =>
  call<Created>(client, "CreateAuthRequest", request).pipe(Effect.map((o) => ok(o).authRequest.authId))

const stateOf = (client: AuthServiceClient, authId: string) =>
  call<Created>(client, "GetAuthRequest", { authId }).pipe(Effect.map((o) => ok(o).authRequest.state))

const listIds = (client: AuthServiceClient, request: object) =>
  call<Listed>(client, "ListAuthRequests", request).pipe(Effect.map((o) => ok(o).authRequests.map((r) => r.authId)))

/** A watch's states until it ends, and how it ended; resolves once the server holds its waiter. */
const watch = (client: AuthServiceClient, authId: string) =>
  Effect.gen(function* () {
    const waiters = yield* AuthRequestWaiterCount
    const before = yield* waiters.get
    const ended = Effect.callback<{ states: Array<string>; end: string }>((resume) => {
      const states: Array<string> = []
      const stream = client.WatchAuthRequest({ authId })
      stream.on("data", (message: AuthRequest__Output) => states.push(message.state))
      stream.on("end", () => resume(Effect.succeed({ states, end: "OK" })))
      stream.on("error", (error: grpc.ServiceError) =>
        resume(Effect.succeed({ states, end: `${error.code}: ${error.details}` }))
      )
    })
    const fiber = yield* Effect.forkChild(ended)
    while ((yield* waiters.get) === before) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
    return fiber
  })

describe("gRPC: auth_requests:create, the SSH gate's key", () => {
  it.effect("creates ssh checks, gets, lists and watches; registrations and verdicts are PERMISSION_DENIED", () =>
    Effect.gen(function* () {
      const gate = yield* clientOf({ apiKey: keys.creator.key })
      const admin = yield* clientOf({ apiKey: keys.valid.key })
      ok(yield* call(admin, "CreateUser", { name: "alice" }))
      const authId = yield* create(gate, sshCheck)
      // A machine's registration would wait in the operators' queue to be admitted: it takes write.
      const planted = yield* call(gate, "CreateAuthRequest", registration)
      assert.deepInclude(planted, { code: grpc.status.PERMISSION_DENIED })
      assert.include((planted as { details: string }).details, '"auth_requests:write"')
      const registrationId = yield* create(admin, registration)
      assert.strictEqual(yield* stateOf(gate, authId), PENDING)
      assert.sameMembers(yield* listIds(gate, {}), [authId, registrationId])
      const watching = yield* watch(gate, authId)

      // Each would succeed with a write key (the request is pending, alice exists): refused for the scope alone.
      for (const [method, request] of [
        ["AuthApprove", { authId }],
        ["AuthReject", { authId }],
        ["AuthRegister", { authId: registrationId, user: "alice" }]
      ] as const) {
        const outcome = yield* call(gate, method, request)
        assert.deepInclude(outcome, { code: grpc.status.PERMISSION_DENIED }, method)
        assert.include((outcome as { details: string }).details, '"auth_requests:write"', method)
      }
      assert.strictEqual(yield* stateOf(admin, authId), PENDING, "nothing was decided")
      assert.strictEqual(yield* stateOf(admin, registrationId), PENDING, "nothing was registered")

      ok(yield* call(admin, "AuthApprove", { authId }))
      assert.deepStrictEqual(yield* Fiber.join(watching), { states: [PENDING, APPROVED], end: "OK" })
      // The gate's "a recent approval of this login?": one page of one, filtered in the store.
      const approval = { state: APPROVED, kind: sshCheck.kind, sshCheck: sshCheck.sshCheck, pageSize: 1 }
      assert.deepStrictEqual(yield* listIds(gate, approval), [authId])
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("a key with auth_requests:write still creates, reads, watches, approves, rejects and registers", () =>
    Effect.gen(function* () {
      const operator = yield* clientOf({ apiKey: keys.writer.key })
      const admin = yield* clientOf({ apiKey: keys.valid.key })
      ok(yield* call(admin, "CreateUser", { name: "alice" }))
      const approvedId = yield* create(operator, sshCheck)
      const rejectedId = yield* create(operator, sshCheck)
      const registrationId = yield* create(operator, registration)
      assert.sameMembers(yield* listIds(operator, {}), [approvedId, rejectedId, registrationId])
      const watching = yield* watch(operator, approvedId)
      ok(yield* call(operator, "AuthApprove", { authId: approvedId }))
      ok(yield* call(operator, "AuthReject", { authId: rejectedId }))
      ok(yield* call(operator, "AuthRegister", { authId: registrationId, user: "alice" }))
      assert.deepStrictEqual(yield* Fiber.join(watching), { states: [PENDING, APPROVED], end: "OK" })
      assert.strictEqual(yield* stateOf(operator, rejectedId), "AUTH_REQUEST_STATE_REJECTED")
      assert.strictEqual(yield* stateOf(operator, registrationId), "AUTH_REQUEST_STATE_REGISTERED")
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )
})
