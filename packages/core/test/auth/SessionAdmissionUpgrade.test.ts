import { randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import { Clock, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { makeSessionTokens } from "../../src/auth/SessionTokens.js"
import type { LocalUserConfig, OidcConfig } from "../../src/config/ConfigSections.js"
import { LoginLive, Sessions } from "../../src/index.js"
import { storesBefore } from "../store/StoresBefore.js"
import { sessionsOn } from "./SignInTestLayer.js"

// Sessions a build before admission was kept with them left in the store: an OpenID Connect session admitted under
// older rules (by `preferred_username`, perhaps) and a password session without a fingerprint of its hash.

const HOUR = 3_600_000

const oidc = {
  issuer: "https://idp.example",
  clientId: "gatehouse",
  clientSecret: undefined,
  scopes: ["openid"],
  allowedUsers: [],
  allowedGroups: [],
  allowAnyUser: true,
  groupsClaim: "groups",
  roles: { admin: [], operator: [], viewer: [] },
  defaultRole: "admin"
} satisfies OidcConfig

const alice = (passwordHash: string): LocalUserConfig => ({
  name: "alice",
  role: "admin",
  passwordHash: Redacted.make(passwordHash)
})

/** A session that still answers fails the test, saying as whom. */
const refused = (sessions: Sessions["Service"], cookie: Redacted.Redacted<string>) =>
  Effect.match(sessions.authenticate(cookie), {
    onSuccess: (principal) => assert.fail(`the session of ${principal.subject} still answers, as ${principal.roles}`),
    onFailure: (error) => assert.instanceOf(error, Unauthenticated)
  })

const under = (auth: Pick<LoginLive.LoginOptions, "users" | "oidc">) => ({
  currentRoles: LoginLive.currentSessionRoles(auth)
})

describe.each(storesBefore)("sessions stored before their admission was kept, upgraded ($name)", (store) => {
  // On the live clock: @effect/sql-pg's pool does not make progress under TestClock.
  it.live.skipIf(store.skip)(
    "the OpenID Connect session is ended (sign in again); the password session adopts its user's hash, then is bound",
    () =>
      Effect.gen(function* () {
        const key = randomBytes(32)
        const tokens = makeSessionTokens(key)
        const [oidcToken, passwordToken] = [tokens.issue(), tokens.issue()]
        const now = yield* Clock.currentTimeMillis
        const row = (id: string, sha256: string, subject: string, method: "session" | "oidc") => ({
          id,
          token_sha256: sha256,
          subject,
          method,
          roles: '["admin"]',
          address: "10.0.0.7",
          user_agent: "old build",
          created_at: now,
          expires_at: now + HOUR,
          renewed_at: now,
          revoked_at: null
        })
        const current = yield* store.before(
          10,
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            yield* sql`INSERT INTO server_secrets ${sql.insert({
              name: "session_cookie",
              value: key.toString("base64"),
              created_at: now
            })}`
            yield* sql`INSERT INTO sessions ${sql.insert([
              row("s_oidc", oidcToken.sha256, "oidc:admin@example.com", "oidc"),
              row("s_password", passwordToken.sha256, "user:alice", "session")
            ])}`
          })
        )
        const withSessions = <A, E>(
          options: ReturnType<typeof under>,
          f: (sessions: Sessions["Service"]) => Effect.Effect<A, E>
        ) =>
          Effect.scoped(
            Effect.flatMap(Layer.build(sessionsOn(current, HOUR, options)), (c) =>
              Sessions.pipe(Effect.flatMap(f), Effect.provideContext(c))
            )
          )
        const oidcCookie = Redacted.make(oidcToken.cookie)
        const passwordCookie = Redacted.make(passwordToken.cookie)

        yield* withSessions(under({ users: [alice("$argon2id$first")], oidc }), (sessions) =>
          Effect.gen(function* () {
            // Revoked by the upgrade itself: not listed as active even before anyone uses it.
            assert.deepStrictEqual(
              (yield* sessions.list).map((session) => session.id),
              ["s_password"]
            )
            yield* refused(sessions, oidcCookie)
            const kept = yield* sessions.authenticate(passwordCookie)
            assert.strictEqual(kept.subject, "user:alice")
            assert.deepStrictEqual(kept.roles, ["admin"])
          })
        )
        // The hash alice had at the session's first use after the upgrade is the one it is bound to now.
        yield* withSessions(under({ users: [alice("$argon2id$first")], oidc }), (sessions) =>
          sessions.authenticate(passwordCookie)
        )
        yield* withSessions(under({ users: [alice("$argon2id$rotated")], oidc }), (sessions) =>
          refused(sessions, passwordCookie)
        )
      }).pipe(Effect.scoped)
  )
})
