import { assert, describe, it } from "@effect/vitest"
import { hashPassword } from "@gatehouse-edge/core"
import { closeCodeOf } from "@gatehouse-edge/core/domain"
import { authServiceEffectClient, makeAuthServiceClient } from "@gatehouse-edge/transport-grpc/client"
import { Effect, Fiber, Stream } from "effect"
import WebSocket from "ws"
import { startTestServer, type TestServer } from "../../../test/support/TestServer.js"
import { waitFor } from "../../../test/support/WaitFor.js"
import { openWs, request } from "../../transport-http/test/support/Http.js"

// Streams check their credential at the upgrade; these prove one that stops being valid later ends the stream.
// (Expiry, at least a minute away for a key, is proven with the TestClock in core's CredentialEnd.test.ts.)

const UNAUTHENTICATED = closeCodeOf("unauthenticated")

type Client = Effect.Success<ReturnType<typeof openWs>>

/** How the server closed the socket, failing the test if it has not within `ms` (wall clock: a real server). */
const closedWithin = (client: Client, ms = 5_000) =>
  Effect.promise(() => client.closed).pipe(
    Effect.timeoutOrElse({
      duration: ms,
      orElse: () => Effect.sync(() => assert.fail(`the stream was not closed within ${ms} ms`))
    })
  )

const createKey = (server: TestServer, name: string, extra: object = {}) =>
  Effect.map(
    request(`${server.baseUrl}/apikeys`, {
      method: "POST",
      key: server.apiKey,
      contentType: "application/json",
      body: JSON.stringify({ name, scopes: ["events:read", "auth_requests:read"], ...extra })
    }),
    (reply) => {
      assert.strictEqual(reply.status, 201, reply.text)
      return reply.json.key as string
    }
  )

/** The stream is open and still delivers: the next frame arrives, and the socket is open after it. */
const stillStreaming = (client: Client) =>
  Effect.map(client.next(), () => assert.strictEqual(client.socket.readyState, WebSocket.OPEN))

describe("streams end when their credential does", () => {
  it.live("revoking an API key closes its streams (1008, the reason), and only its own", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const watcher = yield* openWs(`${server.wsUrl}/events`, { key: yield* createKey(server, "watcher") })
        const bystander = yield* openWs(`${server.wsUrl}/events`, { key: yield* createKey(server, "bystander") })
        const revoked = yield* request(`${server.baseUrl}/apikeys/watcher`, { method: "DELETE", key: server.apiKey })
        assert.strictEqual(revoked.status, 200, revoked.text)
        assert.deepStrictEqual(yield* closedWithin(watcher), { code: UNAUTHENTICATED, reason: "API key revoked" })
        // The other key's stream goes on: it even reports the revocation.
        yield* stillStreaming(bystander)
      })
    )
  )

  it.live("revoking an API key ends its gRPC WatchAuthRequest with UNAUTHENTICATED", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const key = yield* createKey(server, "grpc-watcher")
        const client = yield* Effect.acquireRelease(
          Effect.sync(() => makeAuthServiceClient({ address: server.grpcAddress, apiKey: key, insecure: true })),
          (c) => Effect.sync(() => c.close())
        ).pipe(Effect.map(authServiceEffectClient))
        const admin = yield* Effect.acquireRelease(
          Effect.sync(() =>
            makeAuthServiceClient({ address: server.grpcAddress, apiKey: server.apiKey, insecure: true })
          ),
          (c) => Effect.sync(() => c.close())
        ).pipe(Effect.map(authServiceEffectClient))
        const pending = yield* admin.create({
          kind: "ssh_check",
          ssh_check: { src: "10.0.0.1", dst: "db1", local_user: "root" }
        })
        const states: Array<string> = []
        const watching = yield* Effect.forkChild(
          Effect.flip(
            client.watch(pending.auth_id).pipe(Stream.runForEach((r) => Effect.sync(() => states.push(r.state))))
          )
        )
        // Revoked once the watch is established (it has sent the pending state).
        yield* waitFor(
          Effect.sync(() => states.length),
          (count) => count > 0,
          "the watch's first state"
        )
        assert.deepStrictEqual(states, ["pending"])
        yield* request(`${server.baseUrl}/apikeys/grpc-watcher`, { method: "DELETE", key: server.apiKey })
        const error = yield* Fiber.join(watching).pipe(
          Effect.timeoutOrElse({ duration: 5_000, orElse: () => Effect.sync(() => assert.fail("the watch went on")) })
        )
        assert.strictEqual(error.statusName, "UNAUTHENTICATED")
        assert.match(error.message, /API key revoked/)
      })
    )
  )

  it.live("revoking or signing out a session closes its streams, and only its own", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const hash = yield* hashPassword("alice-password")
        const server = yield* startTestServer({
          configYaml: `auth:\n  users:\n    - { name: alice, password_hash: "${hash}" }\n`
        })
        const signIn = Effect.gen(function* () {
          const reply = yield* request(`${server.baseUrl}/auth/login`, {
            method: "POST",
            key: null,
            contentType: "application/json",
            body: JSON.stringify({ username: "alice", password: "alice-password" })
          })
          assert.strictEqual(reply.status, 200, reply.text)
          const cookie = reply.headers
            .getSetCookie()
            .map((line) => line.split(";")[0]!)
            .join("; ")
          const me = yield* request(`${server.baseUrl}/whoami`, { key: null, headers: { cookie } })
          return { cookie, id: me.json.session.id as string, csrf: reply.json.csrf_token as string }
        })
        const open = (cookie: string) =>
          openWs(`${server.wsUrl}/events`, { key: null, headers: { cookie, origin: server.origin } })
        const first = yield* signIn
        const second = yield* signIn
        const revokedStream = yield* open(first.cookie)
        const signedOutStream = yield* open(second.cookie)
        const keyStream = yield* openWs(`${server.wsUrl}/events`, { key: server.apiKey })

        const revoked = yield* request(`${server.baseUrl}/sessions/${first.id}`, {
          method: "DELETE",
          key: server.apiKey
        })
        assert.strictEqual(revoked.status, 200, revoked.text)
        assert.deepStrictEqual(yield* closedWithin(revokedStream), { code: UNAUTHENTICATED, reason: "session revoked" })
        assert.strictEqual(signedOutStream.socket.readyState, WebSocket.OPEN, "another session's stream goes on")

        const logout = yield* request(`${server.baseUrl}/auth/logout`, {
          method: "POST",
          key: null,
          headers: { cookie: second.cookie, "x-csrf-token": second.csrf }
        })
        assert.strictEqual(logout.status, 200, logout.text)
        assert.deepStrictEqual(yield* closedWithin(signedOutStream), {
          code: UNAUTHENTICATED,
          reason: "session signed out"
        })
        yield* stillStreaming(keyStream)
      })
    )
  )
})
