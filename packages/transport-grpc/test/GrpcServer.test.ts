import * as fs from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { AuthRequestWaiterCount } from "@gatehouse-edge/core"
import { Authentication, AuthRequests } from "@gatehouse-edge/core/services"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { protoPath as healthProtoPath } from "grpc-health-check"
import { AuthServiceCallError, authServiceEffectClient } from "../src/client.js"
import type { AuthRequest__Output } from "../src/gen/gatehouse/v1/AuthRequest.js"
import { GrpcServer, GrpcServerAddress, GrpcServerError, requiredScopes } from "../src/index.js"
import { call, clientOf, grpcServerLayer, keys, ok } from "./support/GrpcHarness.js"

const sshCheck = {
  kind: "AUTH_REQUEST_KIND_SSH_CHECK",
  sshCheck: { src: "127.0.0.1", dst: "db1", localUser: "root" }
}
const registration = (machineKey: string) => ({
  kind: "AUTH_REQUEST_KIND_REGISTRATION",
  registration: { machineKey, nodeKey: `nk-${machineKey}`, hostname: "laptop" }
})

type Created = { authRequest: AuthRequest__Output }

const create = (client: Parameters<typeof call>[0], request: object = sshCheck) =>
  call<Created>(client, "CreateAuthRequest", request).pipe(Effect.map((o) => ok(o).authRequest.authId))

/** Collects a watch's messages until it ends (or fails), as [state, ...] and how it ended. */
const watch = (client: Parameters<typeof call>[0], authId: string, onMessage?: (n: number) => void) =>
  Effect.callback<{ states: Array<string>; end: string; decidedBy: Array<string> }>((resume) => {
    const states: Array<string> = []
    const decidedBy: Array<string> = []
    const stream = client.WatchAuthRequest({ authId })
    stream.on("data", (message: AuthRequest__Output) => {
      states.push(message.state)
      decidedBy.push(message.decidedBy)
      onMessage?.(states.length)
    })
    stream.on("end", () => resume(Effect.succeed({ states, decidedBy, end: "OK" })))
    stream.on("error", (error: grpc.ServiceError) =>
      resume(Effect.succeed({ states, decidedBy, end: `${error.code}: ${error.details}` }))
    )
  })

const PENDING = "AUTH_REQUEST_STATE_PENDING"
const APPROVED = "AUTH_REQUEST_STATE_APPROVED"

describe("gRPC AuthService", () => {
  it.effect("every RPC answers; verdicts record the caller's principal", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const authId = yield* create(client)
      const got = ok(yield* call<Created>(client, "GetAuthRequest", { authId })).authRequest
      assert.strictEqual(got.state, PENDING)
      assert.deepStrictEqual(got.sshCheck, sshCheck.sshCheck)
      assert.deepStrictEqual(ok(yield* call(client, "AuthApprove", { authId })), {})
      const approved = ok(yield* call<Created>(client, "GetAuthRequest", { authId })).authRequest
      assert.strictEqual(approved.state, APPROVED)
      assert.strictEqual(approved.decidedBy, "api-key:valid")
      assert.isNotNull(approved.decidedAt)

      const user = ok(
        yield* call<{ user: { name: string } }>(client, "CreateUser", { name: "alice", email: "a@x.test" })
      )
      assert.strictEqual(user.user.name, "alice")
      const registrationId = yield* create(client, registration("m1"))
      const registered = ok(
        yield* call<{ node: { ipAddresses: Array<string>; user: { name: string } } }>(client, "AuthRegister", {
          user: "alice",
          authId: registrationId
        })
      )
      assert.deepStrictEqual(registered.node.ipAddresses, ["100.64.0.1", "fd7a:115c:a1e0::1"])
      assert.strictEqual(registered.node.user.name, "alice")
      yield* TestClock.adjust("1 second")
      const rejectedId = yield* create(client)
      ok(yield* call(client, "AuthReject", { authId: rejectedId }))

      const list = (request: object) =>
        call<{ authRequests: Array<AuthRequest__Output> }>(client, "ListAuthRequests", request).pipe(
          Effect.map((o) => ok(o).authRequests.map((r) => r.authId))
        )
      // (The order, newest first, is the core's, tested there.)
      assert.sameMembers(yield* list({}), [rejectedId, registrationId, authId])
      assert.deepStrictEqual(yield* list({ state: "AUTH_REQUEST_STATE_REGISTERED" }), [registrationId])
      assert.deepStrictEqual(
        yield* list({ kind: "AUTH_REQUEST_KIND_SSH_CHECK", state: "AUTH_REQUEST_STATE_REJECTED" }),
        [rejectedId]
      )
      assert.sameMembers(yield* list({ state: "AUTH_REQUEST_STATE_UNSPECIFIED" }), [rejectedId, registrationId, authId])
      // A value the enum does not have (a newer client's) is refused, not read as "no filter" (which lists all).
      for (const request of [{ state: 99 }, { kind: 7 }]) {
        const refused = yield* call(client, "ListAuthRequests", request)
        assert.deepInclude(refused, { code: grpc.status.INVALID_ARGUMENT }, JSON.stringify(request))
      }
      const users = ok(yield* call<{ users: Array<{ name: string }> }>(client, "ListUsers", {}))
      assert.deepStrictEqual(
        users.users.map((u) => u.name),
        ["alice"]
      )
      const nodes = ok(yield* call<{ nodes: Array<{ id: string }> }>(client, "ListNodes", { user: "alice" }))
      assert.deepStrictEqual(
        nodes.nodes.map((n) => n.id),
        ["1"]
      )
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("bad input gets the status of its error, and the server keeps answering", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      for (const authId of [
        "",
        "ghreq_short",
        `ghreq_${"a".repeat(25)}`,
        "x".repeat(10_000),
        `ghreq_${"a".repeat(23)}*`
      ]) {
        for (const [method, request] of [
          ["AuthApprove", { authId }],
          ["AuthReject", { authId }],
          ["AuthRegister", { authId, user: "alice" }]
        ] as const) {
          const outcome = yield* call(client, method, request)
          assert.deepInclude(outcome, { code: grpc.status.INVALID_ARGUMENT }, `${method} ${authId.slice(0, 20)}`)
        }
      }
      const unknown = `ghreq_${"b".repeat(24)}`
      assert.deepStrictEqual(yield* call(client, "AuthApprove", { authId: unknown }), {
        code: grpc.status.NOT_FOUND,
        details: `auth request ${unknown} not found`
      })
      const registrationId = yield* create(client, registration("m1"))
      assert.deepStrictEqual(yield* call(client, "AuthRegister", { authId: registrationId, user: "" }), {
        code: grpc.status.INVALID_ARGUMENT,
        details: "user: user is required"
      })
      assert.deepStrictEqual(yield* call(client, "AuthRegister", { authId: registrationId, user: "nobody" }), {
        code: grpc.status.NOT_FOUND,
        details: 'user "nobody" not found'
      })
      const checkId = yield* create(client)
      ok(yield* call(client, "CreateUser", { name: "alice" }))
      assert.deepStrictEqual(yield* call(client, "AuthRegister", { authId: checkId, user: "alice" }), {
        code: grpc.status.FAILED_PRECONDITION,
        details: `auth request ${checkId} is a ssh_check request, not a registration request`
      })
      assert.deepStrictEqual(yield* call(client, "CreateUser", { name: "alice" }), {
        code: grpc.status.ALREADY_EXISTS,
        details: 'user "alice" already exists'
      })
      assert.deepInclude(yield* call(client, "CreateUser", { name: "Bad Name" }), {
        code: grpc.status.INVALID_ARGUMENT
      })
      assert.deepInclude(yield* call(client, "CreateAuthRequest", {}), { code: grpc.status.INVALID_ARGUMENT })
      assert.deepInclude(yield* call(client, "CreateAuthRequest", { kind: "AUTH_REQUEST_KIND_SSH_CHECK" }), {
        code: grpc.status.INVALID_ARGUMENT
      })
      // Approve twice is fine; the opposite verdict is refused.
      ok(yield* call(client, "AuthApprove", { authId: checkId }))
      ok(yield* call(client, "AuthApprove", { authId: checkId }))
      assert.deepStrictEqual(yield* call(client, "AuthReject", { authId: checkId }), {
        code: grpc.status.FAILED_PRECONDITION,
        details: "auth request already approved"
      })
      // A 5 MB message is refused by size, and the server still answers.
      const huge = yield* call(client, "CreateUser", { name: "x".repeat(5 * 1024 * 1024) })
      assert.deepInclude(huge, { code: grpc.status.RESOURCE_EXHAUSTED })
      assert.strictEqual(ok(yield* call<{ users: Array<unknown> }>(client, "ListUsers", {})).users.length, 1)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("an expired request refuses verdicts", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const authId = yield* create(client)
      yield* TestClock.adjust("15 minutes")
      assert.deepStrictEqual(yield* call(client, "AuthApprove", { authId }), {
        code: grpc.status.FAILED_PRECONDITION,
        details: "auth request expired"
      })
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("ListAuthRequests pages: page_size, page_token, an empty next_page_token at the end; bad tokens", () =>
    Effect.gen(function* () {
      const raw = yield* clientOf({ apiKey: keys.valid.key })
      type Page = { authRequests: Array<AuthRequest__Output>; nextPageToken: string }
      const page = (request: object) =>
        call<Page>(raw, "ListAuthRequests", request).pipe(
          Effect.map((o) => {
            const answer = ok(o)
            return { ids: answer.authRequests.map((r) => r.authId), next: answer.nextPageToken }
          })
        )
      const created: Array<string> = []
      for (let i = 0; i < 5; i++) {
        created.push(yield* create(raw))
        yield* TestClock.adjust("1 second")
      }
      const newestFirst = [...created].reverse()
      const first = yield* page({ pageSize: 2 })
      assert.deepStrictEqual(first.ids, newestFirst.slice(0, 2))
      assert.notStrictEqual(first.next, "")
      // Requests created between pages are newer: they do not shift the pages that follow.
      yield* create(raw)
      const second = yield* page({ pageSize: 2, pageToken: first.next })
      assert.deepStrictEqual(second.ids, newestFirst.slice(2, 4))
      const last = yield* page({ pageSize: 2, pageToken: second.next })
      assert.deepStrictEqual(last, { ids: newestFirst.slice(4), next: "" })
      // 0 is the default page (1000): everything, and no next page.
      assert.deepStrictEqual((yield* page({})).next, "")
      assert.strictEqual((yield* page({})).ids.length, 6)
      // The filters ride along with the page: ssh_check fields (empty = any) and decided_after.
      ok(yield* call(raw, "AuthApprove", { authId: created[1] }))
      const approvedAt = ok(yield* call<Created>(raw, "GetAuthRequest", { authId: created[1] })).authRequest.decidedAt!
      const filtered = yield* page({
        state: APPROVED,
        kind: "AUTH_REQUEST_KIND_SSH_CHECK",
        sshCheck: { src: "127.0.0.1", dst: "", localUser: "root" },
        decidedAfter: { seconds: String(Number(approvedAt.seconds) - 1), nanos: 0 },
        pageSize: 1
      })
      assert.deepStrictEqual(filtered, { ids: [created[1]], next: "" })
      assert.deepStrictEqual((yield* page({ sshCheck: { src: "10.9.9.9", dst: "", localUser: "" } })).ids, [])

      const refused = (request: object) => call(raw, "ListAuthRequests", request)
      const malformed = "page_token: malformed: pass the next_page_token of the previous response, unchanged"
      // The token with its last character's unused low bit set: it decodes to the same bytes, but no server wrote it.
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
      const respelled = `${first.next.slice(0, -1)}${alphabet[alphabet.indexOf(first.next.at(-1)!) ^ 1]}`
      assert.deepStrictEqual(Buffer.from(respelled, "base64url"), Buffer.from(first.next, "base64url"))
      const forms = ["nope!", `${first.next}=`, respelled, Buffer.from(`2:${created[0]}`).toString("base64url")]
      for (const pageToken of forms) {
        assert.deepStrictEqual(
          yield* refused({ pageToken }),
          { code: grpc.status.INVALID_ARGUMENT, details: malformed },
          pageToken
        )
      }
      // A well-formed token around something that is no auth_id: the core's reason, naming the token.
      assert.deepStrictEqual(yield* refused({ pageToken: Buffer.from("1:nope").toString("base64url") }), {
        code: grpc.status.INVALID_ARGUMENT,
        details: "page_token: not an auth_id: auth_id must start with ghreq_"
      })
      const tampered = yield* refused({ pageToken: `${first.next.slice(0, -2)}AA` })
      assert.deepInclude(tampered, { code: grpc.status.INVALID_ARGUMENT })
      assert.match((tampered as { details: string }).details, /^page_token: /)
      assert.deepStrictEqual(yield* refused({ pageSize: 1001 }), {
        code: grpc.status.INVALID_ARGUMENT,
        details: "page_size: must be at most 1000 (0 for the default)"
      })
      assert.deepStrictEqual(yield* refused({ decidedAfter: { seconds: "253402300800", nanos: 0 } }), {
        code: grpc.status.INVALID_ARGUMENT,
        details: "decided_after: not a valid google.protobuf.Timestamp"
      })
      // A token whose request was deleted after its retention (30 days) no longer marks a place.
      const {
        ids: [newest],
        next: stale
      } = yield* page({ pageSize: 1 })
      yield* TestClock.adjust("31 days")
      for (let i = 0; i < 1000 && (yield* page({})).ids.length > 0; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(yield* refused({ pageToken: stale }), {
        code: grpc.status.INVALID_ARGUMENT,
        details:
          `page_token: auth request ${newest} not found (deleted after its retention, or never there); ` +
          "start again from the first page"
      })
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("a refusal names its error: machine code and details in trailing metadata, read by the typed client", () =>
    Effect.gen(function* () {
      const raw = yield* clientOf({ apiKey: keys.valid.key })
      const client = authServiceEffectClient(raw)
      const expired = yield* create(raw)
      yield* TestClock.adjust("15 minutes")
      const decided = yield* create(raw)
      ok(yield* call(raw, "AuthReject", { authId: decided }))
      const check = yield* create(raw)
      const registrationId = yield* create(raw, registration("m9"))
      ok(yield* call(raw, "CreateUser", { name: "alice" }))
      // Three refusals with one gRPC status: the code and the details say which is which, as an HTTP body does.
      const refusals = [
        [client.approve(expired), "failed_precondition", [{ reason: "AuthRequestExpired", auth_id: expired }]],
        [
          client.approve(decided),
          "failed_precondition",
          [{ reason: "AuthRequestAlreadyDecided", auth_id: decided, state: "rejected" }]
        ],
        [
          client.register(check, "alice"),
          "failed_precondition",
          [{ reason: "AuthRequestWrongKind", auth_id: check, kind: "ssh_check", expected: "registration" }]
        ],
        [client.register(registrationId, "nobody"), "not_found", [{ reason: "UserNotFound", name: "nobody" }]]
      ] as const
      for (const [operation, code, details] of refusals) {
        const error = yield* Effect.flip(operation as Effect.Effect<unknown, AuthServiceCallError>)
        assert.instanceOf(error, AuthServiceCallError)
        assert.strictEqual(error.code, code)
        assert.deepStrictEqual(error.details, details)
        assert.match(error.requestId ?? "", /^[0-9a-f-]{36}$/)
      }
      // On the wire, for clients in other languages: ASCII metadata for the code, JSON bytes for the details.
      const status = yield* Effect.callback<grpc.ServiceError>((resume) => {
        raw.AuthApprove({ authId: expired }, (error) => resume(Effect.succeed(error!)))
      })
      assert.deepStrictEqual(status.metadata.get("gatehouse-error-code"), ["failed_precondition"])
      const bytes = status.metadata.get("gatehouse-error-details-bin")[0] as Buffer
      assert.deepStrictEqual(JSON.parse(bytes.toString("utf8")), [{ reason: "AuthRequestExpired", auth_id: expired }])
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("no, invalid, expired or revoked API key: UNAUTHENTICATED; the unix socket needs none", () =>
    Effect.gen(function* () {
      for (const apiKey of [undefined, "not-a-key", `${keys.valid.key}x`, keys.expired.key, keys.revoked.key]) {
        const client = yield* clientOf({ apiKey })
        assert.deepInclude(yield* call(client, "ListUsers", {}), { code: grpc.status.UNAUTHENTICATED }, String(apiKey))
        assert.deepInclude(yield* call(client, "AuthApprove", { authId: `ghreq_${"b".repeat(24)}` }), {
          code: grpc.status.UNAUTHENTICATED
        })
      }
      const local = yield* clientOf({ unix: true })
      const authId = yield* create(local)
      ok(yield* call(local, "AuthApprove", { authId }))
      const decided = ok(yield* call<Created>(local, "GetAuthRequest", { authId })).authRequest
      assert.strictEqual(decided.decidedBy, "unix-socket")
      const socket = (yield* GrpcServerAddress).unixSocket!
      assert.strictEqual(fs.statSync(socket).mode & 0o777, 0o770)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("each RPC needs the scope its proto declares: PERMISSION_DENIED naming it, the call not made", () =>
    Effect.gen(function* () {
      const scopes = requiredScopes()
      assert.deepStrictEqual(scopes, {
        AuthRegister: "auth_requests:write",
        AuthApprove: "auth_requests:write",
        AuthReject: "auth_requests:write",
        CreateAuthRequest: "auth_requests:create",
        GetAuthRequest: "auth_requests:read",
        ListAuthRequests: "auth_requests:read",
        WatchAuthRequest: "auth_requests:read",
        CreateUser: "users:write",
        ListUsers: "users:read",
        ListNodes: "users:read"
      })
      const admin = yield* clientOf({ apiKey: keys.valid.key })
      const reader = yield* clientOf({ apiKey: keys.reader.key })
      const authId = yield* create(admin)
      assert.strictEqual(ok(yield* call<Created>(reader, "GetAuthRequest", { authId })).authRequest.state, PENDING)
      ok(yield* call(reader, "ListAuthRequests", {}))
      for (const [method, request, scope] of [
        ["AuthApprove", { authId }, "auth_requests:write"],
        ["AuthReject", { authId }, "auth_requests:write"],
        ["CreateAuthRequest", sshCheck, "auth_requests:create"],
        ["ListUsers", {}, "users:read"],
        ["CreateUser", { name: "eve" }, "users:write"]
      ] as const) {
        const outcome = yield* call(reader, method, request)
        assert.deepInclude(outcome, { code: grpc.status.PERMISSION_DENIED }, method)
        assert.include((outcome as { details: string }).details, `"${scope}"`, method)
      }
      assert.strictEqual(ok(yield* call<Created>(admin, "GetAuthRequest", { authId })).authRequest.state, PENDING)
      const watched = yield* Effect.forkChild(watch(reader, authId))
      ok(yield* call(admin, "AuthApprove", { authId }))
      assert.deepStrictEqual((yield* Fiber.join(watched)).states.at(-1), APPROVED, "the reader may watch")
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("1,000 concurrent approvals of distinct requests all succeed; of two opposite verdicts one wins", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const ids = yield* Effect.forEach(Array.from({ length: 1000 }), () => create(client), { concurrency: 50 })
      const outcomes = yield* Effect.forEach(ids, (authId) => call(client, "AuthApprove", { authId }), {
        concurrency: "unbounded"
      })
      assert.strictEqual(outcomes.filter((o) => "ok" in o).length, 1000)
      const approved = ok(
        yield* call<{ authRequests: Array<unknown> }>(client, "ListAuthRequests", {
          state: "AUTH_REQUEST_STATE_APPROVED"
        })
      )
      assert.strictEqual(approved.authRequests.length, 1000)
      for (let round = 0; round < 10; round++) {
        const authId = yield* create(client)
        const [a, r] = yield* Effect.all(
          [call(client, "AuthApprove", { authId }), call(client, "AuthReject", { authId })],
          {
            concurrency: 2
          }
        )
        const winners = [a, r].filter((o) => "ok" in o)
        assert.strictEqual(winners.length, 1)
        assert.deepInclude([a, r].find((o) => !("ok" in o))!, { code: grpc.status.FAILED_PRECONDITION })
      }
    }).pipe(
      Effect.scoped,
      // 1,000 calls at once from one client: past the default cap of 256 (refused, RESOURCE_EXHAUSTED).
      Effect.provide(grpcServerLayer({ limits: { callsPerClient: 1000 } }, { maxPending: 2000 }))
    )
  )

  it.effect("Watch: the current state, each change, the end; a decided request's stored verdict at once", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const waiters = yield* AuthRequestWaiterCount
      const authId = yield* create(client)
      const watching = yield* Effect.forkChild(watch(client, authId))
      while ((yield* waiters.get) === 0) yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
      ok(yield* call(client, "AuthApprove", { authId }))
      const seen = yield* Fiber.join(watching)
      assert.deepStrictEqual(seen, { states: [PENDING, APPROVED], decidedBy: ["", "api-key:valid"], end: "OK" })
      assert.deepStrictEqual(yield* watch(client, authId), {
        states: [APPROVED],
        decidedBy: ["api-key:valid"],
        end: "OK"
      })
      assert.deepStrictEqual(
        (yield* watch(client, `ghreq_${"c".repeat(24)}`)).end,
        `5: auth request ghreq_${"c".repeat(24)} not found`
      )
      assert.deepStrictEqual((yield* watch(client, "nope")).end, "3: auth_id: auth_id must start with ghreq_")
      const unauthenticated = yield* clientOf({ apiKey: "wrong" })
      assert.match((yield* watch(unauthenticated, authId)).end, /^16: /)
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("Watch repeats the pending state every heartbeat, and a cancelled watch frees its waiter", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: keys.valid.key })
      const waiters = yield* AuthRequestWaiterCount
      const authId = yield* create(client)
      let received = 0
      const stream = client.WatchAuthRequest({ authId })
      stream.on("data", () => received++)
      stream.on("error", () => {})
      const until = (check: () => boolean) =>
        Effect.gen(function* () {
          for (let i = 0; i < 500 && !check(); i++) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
          assert.isTrue(check())
        })
      yield* until(() => received === 1)
      yield* TestClock.adjust("15 seconds")
      yield* until(() => received === 2)
      yield* TestClock.adjust("15 seconds")
      yield* until(() => received === 3)
      assert.strictEqual(yield* waiters.get, 1)
      stream.cancel()
      const gone = yield* Effect.gen(function* () {
        for (let i = 0; i < 500; i++) {
          if ((yield* waiters.get) === 0) return true
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
        }
        return false
      })
      assert.isTrue(gone, "the cancelled watch's waiter was not freed")
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("serves grpc.health.v1", () =>
    Effect.gen(function* () {
      const address = yield* GrpcServerAddress
      const health = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath)) as unknown as {
        grpc: { health: { v1: { Health: new (a: string, c: grpc.ChannelCredentials) => grpc.Client } } }
      }
      const client = new health.grpc.health.v1.Health(`127.0.0.1:${address.port}`, grpc.credentials.createInsecure())
      for (const service of ["", "gatehouse.v1.AuthService"]) {
        const status = yield* Effect.callback<unknown>((resume) => {
          ;(client as unknown as { Check: Function }).Check({ service }, (error: unknown, response: unknown) =>
            resume(Effect.succeed(error ?? response))
          )
        })
        assert.deepStrictEqual(status, { status: 1 }) // SERVING
      }
      client.close()
    }).pipe(Effect.scoped, Effect.provide(grpcServerLayer()))
  )

  it.effect("refuses plaintext on a non-loopback address unless insecure", () =>
    Effect.gen(function* () {
      const refused = yield* Effect.flip(Layer.build(grpcServerLayer({ host: "0.0.0.0" })))
      assert.instanceOf(refused, GrpcServerError)
      assert.match(refused.message, /refusing to serve gRPC without TLS on 0\.0\.0\.0:0/)
    }).pipe(Effect.scoped)
  )

  it.effect("a defect is INTERNAL with a generic message and a request id, never UNKNOWN", () =>
    Effect.gen(function* () {
      const client = yield* clientOf({ apiKey: "k" })
      const status = yield* Effect.callback<grpc.ServiceError>((resume) => {
        client.GetAuthRequest({ authId: `ghreq_${"d".repeat(24)}` }, (error) => resume(Effect.succeed(error!)))
      })
      assert.strictEqual(status.code, grpc.status.INTERNAL)
      assert.strictEqual(status.details, "internal error")
      assert.match(String(status.metadata.get("x-request-id")[0]), /^[0-9a-f-]{36}$/)
      assert.deepStrictEqual(status.metadata.get("gatehouse-error-code"), ["internal"])
      assert.deepStrictEqual(status.metadata.get("gatehouse-error-details-bin"), [])
    }).pipe(
      Effect.scoped,
      Effect.provide(
        GrpcServer.layer({ host: "127.0.0.1", port: 0 }).pipe(
          Layer.provide(
            Authentication.layerTest({
              k: { method: "api_key", subject: "api-key:k", roles: ["admin"], scopes: ["admin"] }
            })
          ),
          // The transport's side of a broken core: the service dies, the client must see INTERNAL.
          Layer.provide(
            Layer.succeed(AuthRequests)(
              AuthRequests.of({ get: () => Effect.die(new Error("disk on fire: /var/secret")) } as never)
            )
          )
        )
      )
    )
  )
})
