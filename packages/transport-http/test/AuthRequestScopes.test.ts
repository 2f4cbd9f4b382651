import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { keyWith, postJson } from "./support/HarnessKeys.js"
import { openWs, request } from "./support/Http.js"
import { type Harness, startHarness } from "./support/TransportHarness.js"

const sshCheck = { kind: "ssh_check", ssh_check: { src: "10.0.0.7", dst: "db1", local_user: "root" } } as const
const registration = { kind: "registration", registration: { machine_key: "mk-1", node_key: "nk-1", hostname: "h" } }

const created = (h: Harness, key: string, body: object) =>
  Effect.map(postJson(h, "/auth/requests", key, body), (reply) => {
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.json.auth_id as string
  })

const stateOf = (h: Harness, key: string, authId: string) =>
  Effect.map(request(`${h.baseUrl}/auth/requests/${authId}`, { key }), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    return reply.json.state as string
  })

describe("HTTP: auth_requests:create, the SSH gate's key", () => {
  it.live("creates ssh checks, gets, lists and watches; registrations and verdicts are 403 naming write", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const gate = yield* keyWith(h, "ssh-gate", ["auth_requests:create"])
        assert.strictEqual((yield* postJson(h, "/users", h.apiKey, { name: "alice" })).status, 201)
        const authId = yield* created(h, gate, sshCheck)
        // A machine's registration would wait in the operators' queue to be admitted: it takes write.
        const planted = yield* postJson(h, "/auth/requests", gate, registration)
        assert.strictEqual(planted.status, 403, planted.text)
        assert.deepStrictEqual(planted.json.error.details, [{ reason: "MissingScope", scope: "auth_requests:write" }])
        const registrationId = yield* created(h, h.apiKey, registration)
        assert.strictEqual(yield* stateOf(h, gate, authId), "pending")
        const listed = yield* request(`${h.baseUrl}/auth/requests?kind=ssh_check&src=10.0.0.7&limit=1`, { key: gate })
        assert.strictEqual(listed.status, 200, listed.text)
        assert.deepStrictEqual(
          listed.json.map((r: { auth_id: string }) => r.auth_id),
          [authId]
        )
        const watcher = yield* openWs(`${h.wsUrl}/auth/requests/${authId}`, { key: gate })
        assert.strictEqual((yield* watcher.until(() => true)).state, "pending")

        // Each would succeed with a write key (the requests are pending, alice exists): refused for the scope alone.
        for (const [path, body] of [
          ["/auth/approve", { auth_id: authId }],
          ["/auth/reject", { auth_id: authId }],
          ["/auth/register", { auth_id: registrationId, user: "alice" }]
        ] as const) {
          const refused = yield* postJson(h, path, gate, body)
          assert.strictEqual(refused.status, 403, `${path}: ${refused.text}`)
          assert.deepStrictEqual(
            refused.json.error.details,
            [{ reason: "MissingScope", scope: "auth_requests:write" }],
            path
          )
          assert.match(refused.json.error.message, /"auth_requests:write"/, path)
        }
        assert.strictEqual(yield* stateOf(h, h.apiKey, authId), "pending", "nothing was decided")
        assert.strictEqual(yield* stateOf(h, h.apiKey, registrationId), "pending", "nothing was registered")

        assert.strictEqual((yield* postJson(h, "/auth/approve", h.apiKey, { auth_id: authId })).status, 200)
        assert.strictEqual((yield* watcher.until((frame) => frame.state !== "pending")).state, "approved")
        assert.strictEqual((yield* Effect.promise(() => watcher.closed)).code, 1000)
        // The gate's "a recent approval of this login?": one page of one, filtered in the store.
        const approval = yield* request(
          `${h.baseUrl}/auth/requests?state=approved&kind=ssh_check&src=10.0.0.7&dst=db1&local_user=root&limit=1`,
          { key: gate }
        )
        assert.deepStrictEqual(
          approval.json.map((r: { auth_id: string }) => r.auth_id),
          [authId]
        )
      })
    )
  )

  it.live("a key with auth_requests:write still creates, reads, watches, approves, rejects and registers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const operator = yield* keyWith(h, "operator", ["auth_requests:write"])
        assert.strictEqual((yield* postJson(h, "/users", h.apiKey, { name: "alice" })).status, 201)
        const approvedId = yield* created(h, operator, sshCheck)
        const rejectedId = yield* created(h, operator, sshCheck)
        const registrationId = yield* created(h, operator, registration)
        const listed = yield* request(`${h.baseUrl}/auth/requests`, { key: operator })
        assert.sameMembers(
          listed.json.map((r: { auth_id: string }) => r.auth_id),
          [approvedId, rejectedId, registrationId]
        )
        const watcher = yield* openWs(`${h.wsUrl}/auth/requests/${approvedId}`, { key: operator })
        assert.strictEqual((yield* watcher.until(() => true)).state, "pending")
        const approved = yield* postJson(h, "/auth/approve", operator, { auth_id: approvedId })
        assert.deepStrictEqual([approved.status, approved.json.decided_by], [200, "api-key:operator"])
        assert.strictEqual((yield* postJson(h, "/auth/reject", operator, { auth_id: rejectedId })).status, 200)
        const registered = yield* postJson(h, "/auth/register", operator, { auth_id: registrationId, user: "alice" })
        assert.strictEqual(registered.status, 200, registered.text)
        assert.strictEqual((yield* watcher.until((frame) => frame.state !== "pending")).state, "approved")
        assert.strictEqual(yield* stateOf(h, operator, rejectedId), "rejected")
        assert.strictEqual(yield* stateOf(h, operator, registrationId), "registered")
      })
    )
  )
})
