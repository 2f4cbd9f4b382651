import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import { Deferred, Effect, Fiber, Layer, Option, Redacted } from "effect"
import type { LocalUserConfig, OidcConfig } from "../../src/config/ConfigSections.js"
import {
  EventBus,
  EventRepository,
  Events,
  LoginLive,
  ServerSecrets,
  SessionRepository,
  Sessions,
  SessionsLive,
  StoreLive
} from "../../src/index.js"
import { tempDir } from "../store/TempDir.js"
import { sessionsOn, withSessions } from "./SignInTestLayer.js"

const HOUR = 3_600_000

const holder = (subject: string, method: "session" | "oidc", role: "admin" | "operator" | "viewer") =>
  ({ subject, method, role, address: "10.0.0.7", userAgent: "test" }) as const

const user = (name: string, role: "admin" | "operator" | "viewer") =>
  ({ name, role, passwordHash: Redacted.make("$argon2id$unused") }) as unknown as LocalUserConfig

describe("sessions under the configuration the server runs with", () => {
  it.live("a user removed from auth.users is signed out for good, a demoted one has the new role's scopes", () =>
    Effect.gen(function* () {
      const store = StoreLive.layer({ filename: path.join(yield* tempDir, "gatehouse.db") })
      const oidc = {
        issuer: "https://idp.example",
        allowedUsers: [],
        allowedGroups: ["ops"],
        groupsClaim: "groups",
        roles: { admin: [], operator: ["ops"], viewer: [] },
        defaultRole: "viewer"
      } as unknown as OidcConfig
      const [alice, bob, carol] = yield* withSessions(store, {}, (sessions) =>
        Effect.all([
          sessions.create(holder("user:alice", "session", "admin")),
          sessions.create(holder("user:bob", "session", "admin")),
          sessions.create({
            ...holder("oidc:carol", "oidc", "operator"),
            oidcClaims: { iss: "https://idp.example", sub: "carol", groups: ["ops"] }
          })
        ])
      )

      // Restarted: alice is now a viewer, bob is gone, and OpenID Connect is still configured.
      const restarted = { currentRoles: LoginLive.currentSessionRoles({ users: [user("alice", "viewer")], oidc }) }
      yield* withSessions(store, restarted, (sessions) =>
        Effect.gen(function* () {
          const demoted = yield* sessions.authenticate(alice!.cookie)
          assert.deepStrictEqual(demoted.roles, ["viewer"])
          assert.notInclude(demoted.scopes, "routes:write")
          const refused = yield* Effect.flip(sessions.authenticate(bob!.cookie))
          assert.instanceOf(refused, Unauthenticated)
          assert.strictEqual(refused.message, "user:bob may no longer sign in: session ended")
          assert.deepStrictEqual((yield* sessions.authenticate(carol!.cookie)).roles, ["operator"])
        })
      )

      // Bob back, OpenID Connect gone: bob's session stays ended; carol's ends.
      const again = {
        currentRoles: LoginLive.currentSessionRoles({
          users: [user("alice", "viewer"), user("bob", "admin")],
          oidc: undefined
        })
      }
      yield* withSessions(store, again, (sessions) =>
        Effect.gen(function* () {
          assert.instanceOf(yield* Effect.flip(sessions.authenticate(bob!.cookie)), Unauthenticated)
          assert.instanceOf(yield* Effect.flip(sessions.authenticate(carol!.cookie)), Unauthenticated)
          assert.deepStrictEqual(
            (yield* sessions.list).map((session) => session.subject),
            ["user:alice"]
          )
        })
      )
    })
  )

  it.live("a session the configuration ends is one auth/logout event by config, and its streams end", () =>
    Effect.gen(function* () {
      const store = StoreLive.layer({ filename: path.join(yield* tempDir, "gatehouse.db") })
      const bob = yield* withSessions(store, {}, (sessions) => sessions.create(holder("user:bob", "session", "admin")))
      // Restarted without bob: his next request ends the session.
      const restarted = { currentRoles: LoginLive.currentSessionRoles({ users: [], oidc: undefined }) }
      yield* Effect.gen(function* () {
        const sessions = yield* Sessions
        const events = yield* Events
        const stream = yield* Effect.forkChild(
          sessions.validUntilEnded({ id: bob.session.id, expires_at: bob.session.expires_at, renewed: false })
        )
        // Two requests with the cookie at once: both refused (the later one may find it ended already), the end
        // recorded once.
        const refusals = yield* Effect.all(
          [Effect.flip(sessions.authenticate(bob.cookie)), Effect.flip(sessions.authenticate(bob.cookie))],
          { concurrency: 2 }
        )
        assert.strictEqual(refusals[0].message, "user:bob may no longer sign in: session ended")
        assert.instanceOf(refusals[1], Unauthenticated)
        const logouts = (yield* events.history({ category: "auth" })).filter((event) => event.action === "logout")
        assert.deepStrictEqual(
          logouts.map((event) => event.data),
          [
            {
              subject: "user:bob",
              session_id: bob.session.id,
              by: "config",
              reason: "user:bob may no longer sign in: session ended"
            }
          ]
        )
        assert.instanceOf(yield* Effect.flip(Fiber.join(stream)), Unauthenticated)
      }).pipe(Effect.provide(sessionsOn(store, HOUR, restarted)), Effect.scoped)
    })
  )

  it.live("a lookup under way when a session ends does not keep it valid from the cache", () =>
    Effect.gen(function* () {
      const reading = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      let slow = false
      // The store's answer held back until the session has been ended: a lookup that read its row just before.
      const slowReads = Layer.effect(
        SessionRepository,
        Effect.map(SessionRepository, (repository) =>
          SessionRepository.of({
            ...repository,
            findByToken: (sha) =>
              Effect.flatMap(repository.findByToken(sha), (found) =>
                slow
                  ? Effect.as(Effect.andThen(Deferred.succeed(reading, undefined), Deferred.await(release)), found)
                  : Effect.succeed(found)
              )
          })
        )
      )
      const layer = SessionsLive.layer({ ttlMs: HOUR }).pipe(
        Layer.provide(slowReads),
        Layer.provideMerge(EventBus.layer({ historyCap: 1000 }) as Layer.Layer<Events, never, EventRepository>),
        Layer.provideMerge(Layer.mergeAll(EventRepository.layer, SessionRepository.layer, ServerSecrets.layer)),
        Layer.provideMerge(StoreLive.layerMemory)
      )
      yield* Effect.gen(function* () {
        const sessions = yield* Sessions
        const issued = yield* sessions.create(holder("user:alice", "session", "admin"))
        slow = true
        const lookup = yield* Effect.forkChild(sessions.authenticate(issued.cookie))
        yield* Deferred.await(reading)
        slow = false
        assert.isTrue(Option.isSome(yield* sessions.end(issued.cookie)))
        yield* Deferred.succeed(release, undefined)
        // The lookup that began before the end still gets its answer; nothing it read may outlive the end.
        assert.strictEqual((yield* Fiber.join(lookup)).subject, "user:alice")
        assert.instanceOf(yield* Effect.flip(sessions.authenticate(issued.cookie)), Unauthenticated)
      }).pipe(Effect.provide(layer), Effect.scoped)
    })
  )
})
