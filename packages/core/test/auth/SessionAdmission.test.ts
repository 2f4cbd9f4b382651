import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import { Effect, Layer, Redacted } from "effect"
import { Login } from "../../src/auth/Login.js"
import { admissionClaimsOf } from "../../src/auth/OidcAdmissionClaims.js"
import type { LocalUserConfig, OidcConfig } from "../../src/config/ConfigSections.js"
import { hashPassword, LoginLive, type Sessions, StoreLive } from "../../src/index.js"
import { tempDir } from "../store/TempDir.js"
import { sessionsOn, withSessions } from "./SignInTestLayer.js"

// Each `withSessions` is a server started on the same store with the configuration given: what a session is worth
// after a restart under another `auth` section.

const HOUR = 3_600_000
const client = { address: "10.0.0.7", userAgent: "test" }

const oidcConfig = (overrides: Partial<OidcConfig> = {}): OidcConfig => ({
  issuer: "https://idp.example",
  clientId: "gatehouse",
  clientSecret: undefined,
  scopes: ["openid", "groups"],
  allowedUsers: [],
  allowedGroups: ["admins", "viewers"],
  allowAnyUser: false,
  groupsClaim: "groups",
  roles: { admin: ["admins"], operator: [], viewer: ["viewers"] },
  defaultRole: "viewer",
  ...overrides
})

const user = (name: string, passwordHash: string): LocalUserConfig => ({
  name,
  role: "admin",
  passwordHash: Redacted.make(passwordHash)
})

const under = (auth: Pick<LoginLive.LoginOptions, "users" | "oidc">) => ({
  currentRoles: LoginLive.currentSessionRoles(auth)
})

const onDisk = Effect.map(tempDir, (dir) => StoreLive.layer({ filename: path.join(dir, "gatehouse.db") }))

const oidcSession = (sub: string, role: "admin" | "viewer", claims: Record<string, unknown> | undefined) => ({
  subject: `oidc:${sub}`,
  method: "oidc" as const,
  role,
  ...client,
  oidcClaims: claims === undefined ? undefined : admissionClaimsOf(oidcConfig(), claims)
})

/** Why the session in `cookie` is refused; a session that still answers fails the test, saying with which roles. */
const refusal = (sessions: Sessions["Service"], cookie: Redacted.Redacted<string>) =>
  Effect.match(sessions.authenticate(cookie), {
    onSuccess: (principal) => assert.fail(`the session of ${principal.subject} still answers, as ${principal.roles}`),
    onFailure: (error) => {
      assert.instanceOf(error, Unauthenticated)
      return error.message
    }
  })

describe("an OpenID Connect session is admitted again, at each use, on the claims of its sign-in", () => {
  it.live("allowed_groups narrowed: ended (and revoked); its group mapped lower: the lower role", () =>
    Effect.gen(function* () {
      const store = yield* onDisk
      const ada = { iss: "https://idp.example", sub: "ada", groups: ["admins", "staff"] }
      const vic = { iss: "https://idp.example", sub: "vic", groups: ["viewers"] }
      const [adas, vics] = yield* withSessions(store, under({ users: [], oidc: oidcConfig() }), (sessions) =>
        Effect.all([
          sessions.create(oidcSession("ada", "admin", ada)),
          sessions.create(oidcSession("vic", "viewer", vic))
        ])
      )
      const narrowed = oidcConfig({ allowedGroups: ["staff"], roles: { admin: [], operator: ["admins"], viewer: [] } })
      yield* withSessions(store, under({ users: [], oidc: narrowed }), (sessions) =>
        Effect.gen(function* () {
          const lowered = yield* sessions.authenticate(adas!.cookie)
          assert.deepStrictEqual(lowered.roles, ["operator"])
          assert.notInclude(lowered.scopes, "admin")
          assert.strictEqual(yield* refusal(sessions, vics!.cookie), "oidc:vic may no longer sign in: session ended")
          assert.deepStrictEqual(
            (yield* sessions.list).map((session) => session.subject),
            ["oidc:ada"]
          )
        })
      )
      // Vic's session stays ended when the configuration admits vic again: vic signs in anew.
      yield* withSessions(store, under({ users: [], oidc: oidcConfig() }), (sessions) =>
        Effect.gen(function* () {
          assert.deepStrictEqual((yield* sessions.authenticate(adas!.cookie)).roles, ["admin"])
          yield* refusal(sessions, vics!.cookie)
        })
      )
    })
  )

  it.live("another provider, or a session stored without its claims: ended", () =>
    Effect.gen(function* () {
      const store = yield* onDisk
      const ada = { iss: "https://idp.example", sub: "ada", groups: ["admins"] }
      const [again, legacy] = yield* withSessions(store, under({ users: [], oidc: oidcConfig() }), (sessions) =>
        Effect.all([
          sessions.create(oidcSession("ada", "admin", ada)),
          sessions.create(oidcSession("ada", "admin", undefined))
        ])
      )
      yield* withSessions(store, under({ users: [], oidc: oidcConfig() }), (sessions) =>
        Effect.gen(function* () {
          assert.strictEqual(yield* refusal(sessions, legacy!.cookie), "oidc:ada may no longer sign in: session ended")
          assert.deepStrictEqual((yield* sessions.authenticate(again!.cookie)).roles, ["admin"])
        })
      )
      // `sub` is unique only within its issuer: at another provider, "ada" may be anybody.
      yield* withSessions(
        store,
        under({ users: [], oidc: oidcConfig({ issuer: "https://other.example" }) }),
        (sessions) => refusal(sessions, again!.cookie)
      )
    })
  )

  it.effect("keeps of the claims only what admission reads: the verified email, sub, iss and the groups claim", () =>
    Effect.sync(() => {
      const claims = {
        iss: "https://idp.example",
        sub: "ada",
        email: "ada@example.com",
        email_verified: true,
        preferred_username: "admin@example.com",
        name: "Ada",
        roles: ["admins"],
        groups: ["ignored"]
      }
      assert.deepStrictEqual(admissionClaimsOf(oidcConfig({ groupsClaim: "roles" }), claims), {
        iss: "https://idp.example",
        sub: "ada",
        email: "ada@example.com",
        email_verified: true,
        roles: ["admins"]
      })
      // An email the provider does not vouch for admits nobody: it is not kept.
      assert.deepStrictEqual(admissionClaimsOf(oidcConfig(), { ...claims, email_verified: false }), {
        iss: "https://idp.example",
        sub: "ada",
        groups: ["ignored"]
      })
    })
  )
})

describe("a password session is bound to the password hash it was signed in under", () => {
  it.live("the hash rotated (a leaked password changed): the session signed in with the old one ends", () =>
    Effect.gen(function* () {
      const store = yield* onDisk
      const leaked = yield* hashPassword("leaked-password")
      const auth = { users: [user("alice", leaked)], oidc: undefined }
      const signIn = Effect.flatMap(Login, (login) =>
        login.password({ username: "alice", password: Redacted.make("leaked-password") }, client)
      )
      const [attacker, alice] = yield* Effect.scoped(
        Effect.flatMap(
          Layer.build(
            LoginLive.layer({ ...auth, publicUrl: "http://127.0.0.1:8888" }).pipe(
              Layer.provideMerge(sessionsOn(store, HOUR, under(auth)))
            )
          ),
          (c) => Effect.provideContext(Effect.all([signIn, signIn]), c)
        )
      )
      // Restarted with the same hash: alice's session goes on. (The attacker's is not used until the end: it is
      // bound to what it was signed in with, not to anything learnt at a later use.)
      yield* withSessions(store, under(auth), (sessions) =>
        Effect.map(sessions.authenticate(alice.cookie), (principal) =>
          assert.strictEqual(principal.subject, "user:alice")
        )
      )
      const rotated = { users: [user("alice", yield* hashPassword("fresh-password"))], oidc: undefined }
      yield* withSessions(store, under(rotated), (sessions) =>
        Effect.gen(function* () {
          assert.strictEqual(
            yield* refusal(sessions, attacker.cookie),
            "the password of user:alice has changed since this sign-in: session ended, sign in again"
          )
          yield* refusal(sessions, alice.cookie)
          assert.deepStrictEqual(yield* sessions.list, [])
        })
      )
    })
  )

  it.live("a session stored before fingerprints were kept takes its user's hash at its next use, then is bound", () =>
    Effect.gen(function* () {
      const store = yield* onDisk
      const before = { users: [user("alice", "$argon2id$first")], oidc: undefined }
      const legacy = yield* withSessions(store, under(before), (sessions) =>
        sessions.create({ subject: "user:alice", method: "session", role: "admin", ...client })
      )
      yield* withSessions(store, under(before), (sessions) => sessions.authenticate(legacy.cookie))
      const after = { users: [user("alice", "$argon2id$second")], oidc: undefined }
      yield* withSessions(store, under(after), (sessions) => refusal(sessions, legacy.cookie))
    })
  )
})
