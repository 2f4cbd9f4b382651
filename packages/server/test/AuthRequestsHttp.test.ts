import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient } from "@gatehouse-edge/client"
import { Context, Effect, Fiber, Layer, Stream } from "effect"
import { startTestServer } from "../../../test/support/TestServer.js"

const json = (server: { baseUrl: string; apiKey: string }, method: string, path: string, body?: unknown, key = true) =>
  Effect.promise(async () => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${server.apiKey}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  })

const sshCheck = { kind: "ssh_check", ssh_check: { src: "127.0.0.1", dst: "db1", local_user: "root" } } as const

describe("auth requests over HTTP", () => {
  it.live(
    "each endpoint answers, with its documented statuses for bad input",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const created = yield* json(server, "POST", "/auth/requests", sshCheck)
        assert.strictEqual(created.status, 201)
        const authId = created.body.auth_id as string
        assert.strictEqual((yield* json(server, "POST", "/auth/requests", sshCheck, false)).status, 401)
        assert.strictEqual((yield* json(server, "POST", "/auth/requests", "{not json")).status, 400)
        assert.strictEqual((yield* json(server, "POST", "/auth/requests", { kind: "ssh_check" })).status, 400)
        assert.strictEqual((yield* json(server, "POST", "/auth/approve", {})).status, 400)
        const malformed = yield* json(server, "POST", "/auth/approve", { auth_id: "nope" })
        assert.deepStrictEqual(
          [malformed.status, malformed.body.error.code, malformed.body.error.message],
          [400, "invalid_argument", "auth_id: auth_id must start with ghreq_"]
        )
        const approved = yield* json(server, "POST", "/auth/approve", { auth_id: authId })
        assert.deepStrictEqual(
          [approved.status, approved.body.state, approved.body.decided_by],
          [200, "approved", "api-key:admin"]
        )
        const conflict = yield* json(server, "POST", "/auth/reject", { auth_id: authId })
        assert.deepStrictEqual(
          [conflict.status, conflict.body.error.code, conflict.body.error.message],
          [409, "failed_precondition", "auth request already approved"]
        )
        assert.strictEqual((yield* json(server, "GET", `/auth/requests/ghreq_${"x".repeat(24)}`)).status, 404)
        assert.strictEqual((yield* json(server, "GET", "/auth/requests/ghreq_bad")).status, 400)
        assert.strictEqual((yield* json(server, "GET", "/auth/requests?state=bogus")).status, 400)
        const listed = yield* json(server, "GET", "/auth/requests?state=approved&kind=ssh_check")
        assert.deepStrictEqual(
          listed.body.map((r: { auth_id: string }) => r.auth_id),
          [authId]
        )
        const user = yield* json(server, "POST", "/users", { name: "alice", display_name: "Alice" })
        assert.deepStrictEqual([user.status, user.body.name, user.body.display_name], [201, "alice", "Alice"])
        assert.strictEqual((yield* json(server, "POST", "/users", { name: "alice" })).status, 409)
        assert.strictEqual((yield* json(server, "POST", "/users", { name: "-bad" })).status, 400)
        assert.deepStrictEqual((yield* json(server, "GET", "/users")).body.length, 1)
        const registration = yield* json(server, "POST", "/auth/requests", {
          kind: "registration",
          registration: { machine_key: "m1", node_key: "n1", hostname: "laptop" }
        })
        const check = yield* json(server, "POST", "/auth/register", { auth_id: authId, user: "alice" })
        assert.strictEqual(check.status, 409)
        const node = yield* json(server, "POST", "/auth/register", {
          auth_id: registration.body.auth_id,
          user: "alice"
        })
        assert.deepStrictEqual([node.status, node.body.ip_addresses], [200, ["100.64.0.1", "fd7a:115c:a1e0::1"]])
        assert.strictEqual(
          (yield* json(server, "POST", "/auth/register", { auth_id: registration.body.auth_id, user: "bob" })).status,
          404
        )
        assert.deepStrictEqual((yield* json(server, "GET", "/nodes?user=alice")).body.length, 1)
        assert.strictEqual((yield* json(server, "GET", "/nodes?user=bob")).status, 404)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "the WebSocket ends normally after the verdict; closing it early frees the server's waiter",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const context = yield* Layer.build(GatehouseClient.layer({ baseUrl: server.baseUrl, apiKey: server.apiKey }))
        const client = Context.get(context, GatehouseClient).authRequests
        const first = yield* client.create({ payload: sshCheck })
        const watching = yield* Effect.forkChild(Stream.runCollect(client.watch(first.auth_id)))
        while ((yield* server.authRequestWaiters) === 0) yield* Effect.sleep("5 millis")
        yield* client.reject({ payload: { auth_id: first.auth_id } })
        const states = (yield* Fiber.join(watching)).map((r) => r.state)
        assert.deepStrictEqual(states, ["pending", "rejected"])

        const second = yield* client.create({ payload: sshCheck })
        const abandoned = yield* Effect.forkChild(Stream.runDrain(client.watch(second.auth_id)))
        while ((yield* server.authRequestWaiters) === 0) yield* Effect.sleep("5 millis")
        yield* Fiber.interrupt(abandoned)
        const deadline = Date.now() + 5_000
        while ((yield* server.authRequestWaiters) > 0 && Date.now() < deadline) yield* Effect.sleep("10 millis")
        assert.strictEqual(yield* server.authRequestWaiters, 0, "the closed WebSocket's waiter is still held")
        assert.strictEqual((yield* client.get({ params: { auth_id: second.auth_id } })).state, "pending")
      }).pipe(Effect.scoped),
    60_000
  )
})
