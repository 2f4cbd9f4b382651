import { assert, describe, it } from "@effect/vitest"
import { InvalidCredentials, LoginNotConfigured, RateLimited } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { Login } from "../../src/auth/Login.js"
import { decoyFor, type LoginOptions, oidcRoleOf } from "../../src/auth/LoginLive.js"
import { hashPassword } from "../../src/auth/Passwords.js"
import { Sessions } from "../../src/auth/Sessions.js"
import type { OidcConfig } from "../../src/config/ConfigSections.js"
import { Events } from "../../src/events/Events.js"
import { loginOn } from "./SignInTestLayer.js"

const client = { address: "10.0.0.9", userAgent: "vitest" }

const withLogin = <A, E>(
  options: Omit<LoginOptions, "publicUrl">,
  f: (login: Login["Service"]) => Effect.Effect<A, E, Events | Sessions>
) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(loginOn({ publicUrl: "http://127.0.0.1:8888", ...options })), (context) =>
      Effect.provideContext(
        Effect.gen(function* () {
          return yield* f(yield* Login)
        }),
        context
      )
    )
  )

const users = Effect.gen(function* () {
  return [
    { name: "alice", role: "admin" as const, passwordHash: Redacted.make(yield* hashPassword("alice-password")) },
    { name: "vic", role: "viewer" as const, passwordHash: Redacted.make(yield* hashPassword("vic-password")) }
  ]
})

const password = (login: Login["Service"], username: string, secret: string, address = client.address) =>
  login.password({ username, password: Redacted.make(secret) }, { ...client, address })

describe("Login with a password", () => {
  it.effect("a right password opens a session with the user's role; the sign-in is an event", () =>
    Effect.gen(function* () {
      const configured = yield* users
      yield* withLogin({ users: configured, oidc: undefined }, (login) =>
        Effect.gen(function* () {
          assert.deepStrictEqual(login.methods, { password: true, oidc: false })
          const issued = yield* password(login, "vic", "vic-password")
          const principal = yield* (yield* Sessions).authenticate(issued.cookie)
          assert.strictEqual(principal.subject, "user:vic")
          assert.deepStrictEqual(principal.roles, ["viewer"])
          assert.strictEqual(issued.session.address, "10.0.0.9")
          const events = yield* (yield* Events).history({ category: "auth" })
          assert.deepStrictEqual(events.at(-1)?.data, { subject: "user:vic", method: "session", address: "10.0.0.9" })
        })
      )
    })
  )

  it.effect("an unknown user and a wrong password get the same error; only the event tells them apart", () =>
    Effect.gen(function* () {
      const configured = yield* users
      yield* withLogin({ users: configured, oidc: undefined }, (login) =>
        Effect.gen(function* () {
          const unknown = yield* Effect.flip(password(login, "mallory", "alice-password"))
          const wrong = yield* Effect.flip(password(login, "alice", "nope"))
          assert.instanceOf(unknown, InvalidCredentials)
          assert.instanceOf(wrong, InvalidCredentials)
          assert.strictEqual(unknown.message, wrong.message)
          const events = yield* (yield* Events).history({ category: "auth" })
          assert.deepStrictEqual(
            events.map((e) => e.action === "login_failed" && [e.data.username, e.data.reason]),
            [
              // A name that is nobody's is not kept where every events reader sees it: it may be a password.
              ["", "unknown user"],
              ["alice", "wrong password"]
            ]
          )
        })
      )
    })
  )

  it.effect("too many attempts are rate limited (per user, then per address) until the allowance comes back", () =>
    Effect.gen(function* () {
      const configured = yield* users
      const throttle = { perAddress: 4, perUser: 2, refillMs: 30_000, maxEntries: 100 }
      yield* withLogin({ users: configured, oidc: undefined, throttle }, (login) =>
        Effect.gen(function* () {
          for (let i = 0; i < 2; i++)
            assert.instanceOf(yield* Effect.flip(password(login, "alice", "x")), InvalidCredentials)
          const limited = yield* Effect.flip(password(login, "alice", "alice-password"))
          assert.instanceOf(limited, RateLimited)
          assert.strictEqual((limited as RateLimited).retry_after_s, 30)
          // The address still has allowance for another user, until it is used up too.
          yield* password(login, "vic", "vic-password")
          assert.instanceOf(yield* Effect.flip(password(login, "vic", "x")), InvalidCredentials)
          assert.instanceOf(yield* Effect.flip(password(login, "vic", "vic-password")), RateLimited)
          assert.isOk(yield* password(login, "vic", "vic-password", "10.0.0.10"), "another address")
          yield* TestClock.adjust("30 seconds")
          assert.isOk(yield* password(login, "alice", "alice-password"))
        })
      )
    })
  )

  it.effect("without local users a password sign-in is not configured (503), whatever the name", () =>
    withLogin({ users: [], oidc: undefined }, (login) =>
      Effect.gen(function* () {
        assert.deepStrictEqual(login.methods, { password: false, oidc: false })
        assert.instanceOf(yield* Effect.flip(password(login, "alice", "x")), LoginNotConfigured)
        assert.instanceOf(yield* Effect.flip(login.beginOidc("/", client)), LoginNotConfigured)
      })
    )
  )
})

const oidc = (overrides: Partial<OidcConfig> = {}): OidcConfig => ({
  issuer: "https://idp.example",
  clientId: "gatehouse",
  clientSecret: undefined,
  scopes: ["openid"],
  allowedUsers: [],
  allowedGroups: [],
  allowAnyUser: false,
  groupsClaim: "groups",
  roles: { admin: [], operator: [], viewer: [] },
  defaultRole: "admin",
  ...overrides
})

describe("oidcRoleOf", () => {
  it("admits by verified email, subject id or group, and maps the highest role of the user's groups", () => {
    const config = oidc({
      allowedUsers: ["carol", "dave@example.org"],
      allowedGroups: ["staff", "ops"],
      roles: { admin: ["admins"], operator: ["ops"], viewer: ["staff"] },
      defaultRole: "viewer"
    })
    assert.strictEqual(oidcRoleOf(config, { sub: "carol" }), "viewer")
    // A name the provider does not vouch for admits nobody: users may pick their preferred_username, even the
    // email or the subject id of an allowed user.
    for (const claimed of ["carol", "dave@example.org"])
      assert.isUndefined(oidcRoleOf(config, { sub: "1", preferred_username: claimed }))
    assert.strictEqual(oidcRoleOf(config, { sub: "2", email: "dave@example.org", email_verified: true }), "viewer")
    // An email the provider does not vouch for admits nobody: users may be able to set any address there.
    for (const unverified of [{}, { email_verified: false }, { email_verified: "true" }])
      assert.isUndefined(oidcRoleOf(config, { sub: "2", email: "dave@example.org", ...unverified }))
    assert.strictEqual(oidcRoleOf(config, { sub: "3", groups: ["staff", "ops"] }), "operator")
    assert.strictEqual(oidcRoleOf(config, { sub: "carol", groups: ["admins"] }), "admin")
    assert.isUndefined(oidcRoleOf(config, { sub: "5", preferred_username: "eve", groups: ["admins"] }))
    assert.isUndefined(oidcRoleOf(config, { sub: "6", preferred_username: "eve" }))
    assert.strictEqual(oidcRoleOf(config, { sub: "7", groups: "ops" }), "operator", "a single group as a string")
  })

  it("admits every user of the provider with allow_any_user, with the default role; empty lists admit nobody", () => {
    assert.strictEqual(oidcRoleOf(oidc({ allowAnyUser: true }), { sub: "x" }), "admin")
    assert.strictEqual(oidcRoleOf(oidc({ allowAnyUser: true, defaultRole: "viewer" }), { sub: "x" }), "viewer")
    // The config refuses a provider that admits nobody in particular; were one to get here, it still fails closed.
    assert.isUndefined(oidcRoleOf(oidc(), { sub: "x", groups: ["staff"] }))
  })
})

describe("decoyFor", () => {
  it("checks unknown names against every configured user's hash kind, each name always against the same one", () => {
    const users = ["argon2id user", "bcrypt user", "argon2id user of another cost"]
    const picked = Array.from({ length: 60 }, (_, i) => decoyFor(users, `nobody${i}`))
    assert.sameMembers([...new Set(picked)], users)
    for (let i = 0; i < 60; i++) assert.strictEqual(decoyFor(users, `nobody${i}`), picked[i])
    assert.isUndefined(decoyFor([], "nobody"))
  })
})
