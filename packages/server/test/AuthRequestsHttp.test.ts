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
    "a lone UTF-16 surrogate in a JSON string is refused as 400 invalid_argument naming the field, and nothing is stored",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        // JSON.stringify writes it as the escape `\ud800`, valid JSON that decodes to no character: stored as UTF-8
        // it would read back as U+FFFD, which no filter for what was sent matches.
        const refusals = [
          ["/auth/requests", { kind: "ssh_check", ssh_check: { ...sshCheck.ssh_check, local_user: "\ud800x" } }],
          [
            "/auth/requests",
            { kind: "registration", registration: { machine_key: "m1", node_key: "n1", hostname: "\ud800x" } }
          ],
          ["/users", { name: "alice", display_name: "\ud800x" }]
        ] as const
        const answers = []
        for (const [path, body] of refusals) {
          const refused = yield* json(server, "POST", path, body)
          answers.push([refused.status, refused.body?.error?.code, refused.body?.error?.message])
        }
        assert.deepStrictEqual(answers, [
          [400, "invalid_argument", "ssh_check.local_user: must be 1-255 printable characters on one line"],
          [400, "invalid_argument", "registration.hostname: must be 1-255 printable characters on one line"],
          [400, "invalid_argument", "display_name: must be 1-255 printable characters on one line"]
        ])
        assert.deepStrictEqual((yield* json(server, "GET", "/auth/requests")).body, [])
        assert.deepStrictEqual((yield* json(server, "GET", "/users")).body, [])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "GET /auth/requests pages with limit and before, filters by the ssh_check fields; bad input is a 400",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const created: Array<string> = []
        for (let i = 0; i < 5; i++) {
          const check = { src: "10.7.0.1", dst: `web${i % 2}`, local_user: "root" }
          created.push(
            (yield* json(server, "POST", "/auth/requests", { kind: "ssh_check", ssh_check: check })).body.auth_id
          )
        }
        yield* json(server, "POST", "/auth/requests", sshCheck)
        const ids = (query: string) =>
          json(server, "GET", `/auth/requests?${query}`).pipe(
            Effect.map((answer) => {
              assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
              return (answer.body as Array<{ auth_id: string }>).map((r) => r.auth_id)
            })
          )
        // On the wall clock two requests may share a millisecond: the list's own order (auth_id breaks ties) is
        // the reference, and the pages must be exactly that list, cut in order.
        const whole = yield* ids("src=10.7.0.1")
        assert.sameMembers(whole, created)
        const first = yield* ids("src=10.7.0.1&limit=2")
        const second = yield* ids(`src=10.7.0.1&limit=2&before=${first.at(-1)}`)
        const third = yield* ids(`src=10.7.0.1&limit=2&before=${second.at(-1)}`)
        assert.deepStrictEqual([first, second, third], [whole.slice(0, 2), whole.slice(2, 4), whole.slice(4)])
        assert.sameMembers(yield* ids("dst=web1&local_user=root"), [created[1], created[3]])
        assert.deepStrictEqual(yield* ids("local_user=nobody"), [])
        yield* json(server, "POST", "/auth/approve", { auth_id: created[2] })
        const decidedAt = (yield* json(server, "GET", `/auth/requests/${created[2]}`)).body.decided_at as string
        const justBefore = new Date(Date.parse(decidedAt) - 1).toISOString()
        assert.deepStrictEqual(yield* ids(`decided_after=${justBefore}&src=10.7.0.1&state=approved&limit=1`), [
          created[2]
        ])
        assert.deepStrictEqual(yield* ids(`decided_after=${encodeURIComponent(decidedAt)}`), [])

        const refused = (query: string) =>
          json(server, "GET", `/auth/requests?${query}`).pipe(
            Effect.map((answer) => [answer.status, answer.body?.error?.code, answer.body?.error?.message])
          )
        const unknown = `ghreq_${"u".repeat(24)}`
        assert.deepStrictEqual(yield* refused("before=nope"), [
          400,
          "invalid_argument",
          "before: not an auth_id: auth_id must start with ghreq_"
        ])
        assert.deepStrictEqual(yield* refused(`before=${unknown}`), [
          400,
          "invalid_argument",
          `before: auth request ${unknown} not found (deleted after its retention, or never there); ` +
            "start again from the first page"
        ])
        assert.deepStrictEqual(yield* refused("src="), [
          400,
          "invalid_argument",
          "src: must not be empty (leave it out to match any)"
        ])
        assert.deepStrictEqual((yield* refused("decided_after=yesterday")).slice(0, 2), [400, "invalid_argument"])
        for (const limit of ["0", "1001", "abc", "1.5"]) assert.strictEqual((yield* refused(`limit=${limit}`))[0], 400)
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
