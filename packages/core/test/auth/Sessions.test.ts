import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { SessionNotFound, Unauthenticated } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Option, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { Sessions } from "../../src/auth/Sessions.js"
import { Events } from "../../src/events/Events.js"
import { StoreLive } from "../../src/index.js"
import { tempDir } from "../store/TempDir.js"
import { sessionsOn } from "./SignInTestLayer.js"

const HOUR = 3_600_000

const alice = {
  subject: "user:alice",
  method: "session",
  role: "operator",
  address: "10.0.0.7",
  userAgent: "test"
} as const

const withSessions = <A, E>(
  f: (sessions: Sessions["Service"]) => Effect.Effect<A, E, Events>,
  store: Layer.Layer<SqlClient.SqlClient, unknown> = StoreLive.layerMemory
) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(sessionsOn(store, HOUR)), (context) =>
      Effect.provideContext(
        Effect.gen(function* () {
          return yield* f(yield* Sessions)
        }),
        context
      )
    )
  )

const tampered = (cookie: Redacted.Redacted<string>, change: (value: string) => string) =>
  Redacted.make(change(Redacted.value(cookie)))

describe("Sessions", () => {
  it.effect("a session is a signed cookie that proves its principal; the role's scopes come with it", () =>
    withSessions((sessions) =>
      Effect.gen(function* () {
        const issued = yield* sessions.create(alice)
        assert.match(Redacted.value(issued.cookie), /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/)
        const principal = yield* sessions.authenticate(issued.cookie)
        assert.strictEqual(principal.method, "session")
        assert.strictEqual(principal.subject, "user:alice")
        assert.deepStrictEqual(principal.roles, ["operator"])
        assert.include(principal.scopes, "routes:write")
        assert.notInclude(principal.scopes, "users:write")
        assert.strictEqual(principal.session?.id, issued.session.id)
        assert.deepStrictEqual(yield* sessions.list, [issued.session])
      })
    )
  )

  it.effect("a forged, mangled or unknown cookie is refused", () =>
    withSessions((sessions) =>
      Effect.gen(function* () {
        const issued = yield* sessions.create(alice)
        const other = yield* sessions.create({ ...alice, subject: "user:bob" })
        const [token] = Redacted.value(issued.cookie).split(".")
        const [, otherSignature] = Redacted.value(other.cookie).split(".")
        for (const forged of [
          tampered(issued.cookie, (v) => `${v.slice(0, -1)}${v.endsWith("A") ? "B" : "A"}`),
          Redacted.make(`${token}.${otherSignature}`),
          Redacted.make(token!),
          Redacted.make("x.y"),
          Redacted.make("")
        ]) {
          assert.instanceOf(yield* Effect.flip(sessions.authenticate(forged)), Unauthenticated)
        }
      })
    )
  )

  it.effect("expires ttl after the last renewal; using it renews it (sliding), at most once a minute", () =>
    withSessions((sessions) =>
      Effect.gen(function* () {
        const issued = yield* sessions.create(alice)
        yield* TestClock.adjust(59_000)
        const early = yield* sessions.authenticate(issued.cookie)
        assert.isFalse(early.session?.renewed, "renewed at most once a minute")
        yield* TestClock.adjust(50 * 60_000)
        const renewed = yield* sessions.authenticate(issued.cookie)
        assert.isTrue(renewed.session?.renewed)
        assert.strictEqual(renewed.session?.expires_at, new Date(59_000 + 50 * 60_000 + HOUR).toISOString())
        yield* TestClock.adjust(HOUR - 1)
        assert.strictEqual((yield* sessions.authenticate(issued.cookie)).subject, "user:alice")
        yield* TestClock.adjust(HOUR)
        assert.instanceOf(yield* Effect.flip(sessions.authenticate(issued.cookie)), Unauthenticated)
        assert.deepStrictEqual(yield* sessions.list, [])
      })
    )
  )

  it.effect("an unused session ends after the ttl", () =>
    withSessions((sessions) =>
      Effect.gen(function* () {
        const issued = yield* sessions.create(alice)
        yield* TestClock.adjust(HOUR)
        assert.instanceOf(yield* Effect.flip(sessions.authenticate(issued.cookie)), Unauthenticated)
      })
    )
  )

  it.effect("logout and revocation end a session at once; each is an event, by whoever ended it", () =>
    withSessions((sessions) =>
      Effect.gen(function* () {
        const first = yield* sessions.create(alice)
        const second = yield* sessions.create({ ...alice, subject: "user:bob", role: "viewer" })
        // Both were just used (so each is remembered as valid for a few seconds): ending them must still count.
        yield* sessions.authenticate(first.cookie)
        yield* sessions.authenticate(second.cookie)
        const ended = yield* sessions.end(first.cookie)
        assert.strictEqual(Option.getOrThrow(ended).id, first.session.id)
        assert.instanceOf(yield* Effect.flip(sessions.authenticate(first.cookie)), Unauthenticated)
        assert.isTrue(Option.isNone(yield* sessions.end(first.cookie)), "ending twice finds nothing")
        const revoked = yield* sessions.revoke(second.session.id, "api-key:admin")
        assert.strictEqual(revoked.subject, "user:bob")
        assert.instanceOf(yield* Effect.flip(sessions.authenticate(second.cookie)), Unauthenticated)
        assert.instanceOf(yield* Effect.flip(sessions.revoke(second.session.id, "x")), SessionNotFound)
        const events = yield* (yield* Events).history({ category: "auth" })
        assert.deepStrictEqual(
          events.map((e) => [e.action, e.data]),
          [
            ["logout", { subject: alice.subject, session_id: first.session.id, by: alice.subject }],
            ["logout", { subject: "user:bob", session_id: second.session.id, by: "api-key:admin" }]
          ]
        )
      })
    )
  )

  it.effect("the CSRF token belongs to its session: another session's token or a made-up one does not match", () =>
    withSessions((sessions) =>
      Effect.gen(function* () {
        const a = yield* sessions.create(alice)
        const b = yield* sessions.create(alice)
        assert.strictEqual(sessions.csrfTokenOf(a.cookie), a.csrfToken)
        assert.isTrue(sessions.csrfMatches(a.cookie, a.csrfToken))
        assert.isFalse(sessions.csrfMatches(a.cookie, b.csrfToken))
        assert.isFalse(sessions.csrfMatches(a.cookie, ""))
        assert.isFalse(
          sessions.csrfMatches(
            tampered(a.cookie, (v) => `${v}x`),
            a.csrfToken
          )
        )
      })
    )
  )

  it.live("sessions, and the key that signs their cookies, survive a restart (a real SQLite file)", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "gatehouse.db")
      const store = StoreLive.layer({ filename })
      const issued = yield* withSessions((sessions) => sessions.create(alice), store)
      const principal = yield* withSessions((sessions) => sessions.authenticate(issued.cookie), store)
      assert.strictEqual(principal.subject, "user:alice")
      assert.isTrue(
        yield* withSessions((sessions) => Effect.succeed(sessions.csrfMatches(issued.cookie, issued.csrfToken)), store)
      )
    })
  )
})
