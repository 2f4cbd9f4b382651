import { createHash } from "node:crypto"
import type { Role } from "@gatehouse-edge/contract/domain"
import {
  InvalidCredentials,
  LoginEvent,
  LoginFailedEvent,
  LoginNotConfigured,
  OidcLoginFailed,
  OidcUserNotAllowed,
  RateLimited,
  safeReturnPath
} from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { LocalUserConfig, OidcConfig } from "../config/ConfigSections.js"
import { readSecret } from "../config/ReadSecret.js"
import { Events } from "../events/Events.js"
import { Login, type LoginClient } from "./Login.js"
import { defaultThrottlePolicy, makeLoginThrottle, type ThrottlePolicy } from "./LoginThrottle.js"
import { admissionClaimsOf, issuedBy } from "./OidcAdmissionClaims.js"
import { allowListHint } from "./OidcAllowListHint.js"
import { makeOidcClient, type OidcClaims } from "./OidcClient.js"
import { OidcLoginRepository } from "./OidcLoginRepository.js"
import { verifyPassword } from "./Passwords.js"
import { Sessions } from "./Sessions.js"
import type { CurrentAccess, SessionHolder, SessionsOptions } from "./SessionsLive.js"

/** Options of {@link layer}: the `auth` section and where browsers reach the server. */
export interface LoginOptions {
  readonly users: ReadonlyArray<LocalUserConfig>
  readonly oidc: OidcConfig | undefined
  /** The origin browsers use, e.g. `https://gate.example.com` (OIDC redirect URI, logout return). */
  readonly publicUrl: string
  readonly throttle?: ThrottlePolicy | undefined
}

// A pending OIDC login is good for ten minutes: enough to type a password and pass a second factor.
const OIDC_LOGIN_TTL_MS = 10 * 60_000

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

// The name an unauthenticated client sent goes into events and logs bounded and printable.
const bounded = (name: string) => JSON.stringify(name.slice(0, 64)).slice(1, -1)

/**
 * The configured user whose hash an unknown user name is checked against: one picked by the name, always the same
 * for a name. With users whose hashes cost differently (argon2id and bcrypt, or other costs), always the first
 * one's would make every unknown name answer at its speed, and a known name of another kind stand out.
 */
export const decoyFor = <U>(users: ReadonlyArray<U>, username: string): U | undefined =>
  users[createHash("sha256").update(username).digest().readUInt32BE(0) % users.length]

/**
 * What a session's holder may do under the configuration the server runs with ({@link SessionsOptions.currentRoles}):
 * a password user has the role `auth.users` gives them now, nothing once removed from it, and their session is bound
 * to the password hash they signed in under; a user signed in with OpenID Connect is admitted again on the claims of
 * that sign-in (kept with the session) by {@link oidcRoleOf}: no longer admitted, nothing; else that role. An OIDC
 * session stored before its claims were kept has nothing to be judged on: it ends, and its holder signs in again.
 */
export const currentSessionRoles =
  (options: Pick<LoginOptions, "users" | "oidc">) =>
  (holder: SessionHolder): CurrentAccess | undefined => {
    if (holder.method === "oidc") {
      const claims = holder.oidc_claims
      if (options.oidc === undefined || claims === null || !issuedBy(claims, options.oidc.issuer)) return undefined
      const role = oidcRoleOf(options.oidc, claims)
      return role === undefined ? undefined : { roles: [role] }
    }
    if (holder.method !== "session") return { roles: holder.roles }
    const user = options.users.find((candidate) => `user:${candidate.name}` === holder.subject)
    return user === undefined ? undefined : { roles: [user.role], passwordHash: user.passwordHash }
  }

const rank: Readonly<Record<Role, number>> = { viewer: 0, operator: 1, admin: 2 }

const asStrings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.map(String) : typeof value === "string" ? [value] : []

/**
 * The email the provider vouches for: only with `email_verified: true`. Where users may set any address (self
 * sign-up, some multi-tenant providers), an unverified one would let anybody claim an allowed user's email.
 */
const verifiedEmailOf = (claims: OidcClaims) =>
  claims.email_verified === true && typeof claims.email === "string" && claims.email !== "" ? claims.email : undefined

/**
 * The user's id at the provider, `sub`: the one claim that is stable and unique for the issuer (OIDC Core §5.7).
 * `preferred_username` is neither, and the provider does not vouch for it (users may pick it, or rename), so it
 * names nobody here: not in `allowed_users`, not in the session's subject nor the audit trail it goes into.
 */
const subjectIdOf = (claims: OidcClaims) => String(claims.sub ?? "unknown")

/**
 * Whether the claims admit the user, and with which role: `allowed_users` (the verified email or the subject id)
 * and `allowed_groups` admit (either suffices; `allow_any_user`: every user of the provider, and nobody when
 * neither says anyone: empty lists never mean everyone); the highest role one of the user's groups maps to, else
 * `default_role`.
 */
export const oidcRoleOf = (oidc: OidcConfig, claims: OidcClaims): Role | undefined => {
  const groups = asStrings(claims[oidc.groupsClaim])
  const names = [verifiedEmailOf(claims) ?? "", String(claims.sub ?? "")].filter((n) => n !== "")
  const admitted =
    oidc.allowAnyUser ||
    names.some((name) => oidc.allowedUsers.includes(name)) ||
    groups.some((group) => oidc.allowedGroups.includes(group))
  if (!admitted) return undefined
  const mapped = (["admin", "operator", "viewer"] as const).filter((role) =>
    oidc.roles[role].some((group) => groups.includes(group))
  )
  return mapped.sort((a, b) => rank[b] - rank[a])[0] ?? oidc.defaultRole
}

/**
 * {@link Login} for the configured local users and OpenID provider. Password attempts are throttled per client
 * address and per user name (token buckets, see `LoginThrottle`); an unknown user name verifies the password
 * against a configured user's hash (see {@link decoyFor}), so it costs as a wrong password does and answers the same.
 */
export const layer = (options: LoginOptions): Layer.Layer<Login, never, Sessions | OidcLoginRepository | Events> =>
  Layer.effect(
    Login,
    Effect.gen(function* () {
      const sessions = yield* Sessions
      const pending = yield* OidcLoginRepository
      const events = yield* Events
      const throttle = makeLoginThrottle(options.throttle ?? defaultThrottlePolicy)
      const users = new Map(options.users.map((user) => [user.name, user]))
      const configured = options.users.length > 0
      const oidc = options.oidc
      const redirectUri = `${options.publicUrl}/api/v1/auth/callback`
      // Where the provider sends the browser after its end-session page: the sign-in page.
      const postLogoutRedirectUri = `${options.publicUrl}/login`
      const oidcClient =
        oidc === undefined
          ? undefined
          : yield* makeOidcClient({
              issuer: oidc.issuer,
              clientId: oidc.clientId,
              clientSecret:
                oidc.clientSecret === undefined ? undefined : yield* Effect.orDie(readSecret(oidc.clientSecret)),
              scopes: oidc.scopes,
              redirectUri
            })

      const refuse = (username: string, method: "session" | "oidc", client: LoginClient, reason: string) =>
        events.publish(LoginFailedEvent.make({ username: bounded(username), method, address: client.address, reason }))
      // A password sign-in's refusal names the user only when there is one by that name: anyone with `events:read`
      // reads the event, and a name that is nobody's may be a password typed into the wrong field. The server's
      // log, which only its operator reads, keeps it, as sshd's "Invalid user" lines do.
      const refusePassword = (username: string, client: LoginClient, reason: string) =>
        users.has(username)
          ? refuse(username, "session", client, reason)
          : Effect.andThen(
              Effect.logInfo(`sign-in refused for "${bounded(username)}", not a user, from ${client.address}`),
              refuse("", "session", client, reason)
            )

      const notConfigured = (what: string) => new LoginNotConfigured({ message: `${what} is not configured` })

      return Login.of({
        methods: { password: options.users.length > 0, oidc: oidc !== undefined },
        password: Effect.fn("Login.password")(function* (credentials, client) {
          if (!configured) return yield* notConfigured("sign-in with a password (auth.users)")
          const retryAfter = yield* throttle.attempt(client.address, credentials.username)
          if (retryAfter !== undefined) {
            yield* refusePassword(credentials.username, client, "too many attempts")
            return yield* new RateLimited({
              message: "too many sign-in attempts: wait before trying again",
              retry_after_s: retryAfter
            })
          }
          const user = users.get(credentials.username)
          const matches = yield* verifyPassword(
            Redacted.value((user ?? decoyFor(options.users, credentials.username)!).passwordHash),
            Redacted.value(credentials.password)
          )
          if (user === undefined || !matches) {
            yield* refusePassword(credentials.username, client, user === undefined ? "unknown user" : "wrong password")
            return yield* new InvalidCredentials()
          }
          yield* throttle.succeeded(credentials.username)
          const issued = yield* sessions.create({
            subject: `user:${user.name}`,
            method: "session",
            role: user.role,
            address: client.address,
            userAgent: client.userAgent,
            passwordHash: user.passwordHash
          })
          yield* events.publish(
            LoginEvent.make({ subject: `user:${user.name}`, method: "session", address: client.address })
          )
          return issued
        }),
        beginOidc: Effect.fn("Login.beginOidc")(function* (returnTo, client) {
          if (oidcClient === undefined) return yield* notConfigured("sign-in with OpenID Connect (auth.oidc)")
          // Each start stores a pending login, for anyone who asks: it counts against the address's allowance.
          const retryAfter = yield* throttle.attemptFrom(client.address)
          if (retryAfter !== undefined) {
            return yield* new RateLimited({
              message: "too many sign-in attempts: wait before trying again",
              retry_after_s: retryAfter
            })
          }
          const started = yield* oidcClient.begin()
          const now = yield* Clock.currentTimeMillis
          yield* pending.insert({
            state_sha256: sha256(started.state),
            nonce: started.nonce,
            code_verifier: started.codeVerifier,
            return_to: safeReturnPath(returnTo),
            created_at: now,
            expires_at: now + OIDC_LOGIN_TTL_MS
          })
          return { url: started.url, state: started.state }
        }),
        completeOidc: Effect.fn("Login.completeOidc")(function* (parameters, stateCookie, client) {
          if (oidcClient === undefined || oidc === undefined) {
            return yield* notConfigured("sign-in with OpenID Connect (auth.oidc)")
          }
          // Anybody can call back, with anything: each callback counts against the address's allowance (a sign-in
          // takes two, its start and its callback), before anything is looked up or recorded.
          const retryAfter = yield* throttle.attemptFrom(client.address)
          if (retryAfter !== undefined) {
            return yield* new RateLimited({
              message: "too many sign-in attempts: wait before trying again",
              retry_after_s: retryAfter
            })
          }
          const failed = (message: string) =>
            Effect.andThen(refuse("", "oidc", client, message), Effect.fail(new OidcLoginFailed({ message })))
          // The URL the provider redirected to, as openid-client checks it: the registered redirect URI + parameters.
          const callbackUrl = new URL(redirectUri)
          callbackUrl.search = parameters.toString()
          const state = parameters.get("state")
          if (state === null || state === "") return yield* failed("the callback has no state parameter")
          if (stateCookie === undefined || stateCookie !== state) {
            return yield* failed("the state does not belong to a sign-in started in this browser")
          }
          const login = yield* pending.take(sha256(state), yield* Clock.currentTimeMillis)
          if (Option.isNone(login)) return yield* failed("unknown, used or expired state: start the sign-in again")
          const claims = yield* oidcClient
            .complete(callbackUrl, {
              state,
              nonce: login.value.nonce,
              codeVerifier: login.value.code_verifier,
              groupsClaim: oidc.groupsClaim
            })
            .pipe(
              Effect.tapError((error) =>
                error instanceof OidcLoginFailed ? refuse("", "oidc", client, error.message) : Effect.void
              )
            )
          const subject = `oidc:${subjectIdOf(claims)}`
          const role = oidcRoleOf(oidc, claims)
          if (role === undefined) {
            yield* refuse(subjectIdOf(claims), "oidc", client, "not in allowed_users or allowed_groups")
            // A list written with user names refuses everyone on it: the operator's log, and the user, say so.
            const hint = allowListHint(oidc, claims)
            if (hint === undefined) return yield* new OidcUserNotAllowed({ subject })
            yield* Effect.logWarning(`OIDC sign-in of ${subject} refused: ${hint}`)
            return yield* new OidcUserNotAllowed({ subject, hint })
          }
          const issued = yield* sessions.create({
            subject,
            method: "oidc",
            role,
            address: client.address,
            userAgent: client.userAgent,
            oidcClaims: admissionClaimsOf(oidc, claims)
          })
          yield* events.publish(LoginEvent.make({ subject, method: "oidc", address: client.address }))
          return { issued, returnTo: login.value.return_to }
        }),
        logout: Effect.fn("Login.logout")(function* (cookie) {
          if (cookie === undefined) return {}
          // Sessions.end records the sign-out (auth/logout) with it.
          const ended = yield* sessions.end(cookie)
          if (Option.isNone(ended)) return {}
          const session = ended.value
          if (session.method !== "oidc" || oidcClient === undefined) return {}
          const redirect = yield* oidcClient.endSessionUrl(postLogoutRedirectUri)
          return Option.isSome(redirect) ? { redirect: redirect.value } : {}
        }),
        endSessionOrigin:
          oidcClient === undefined
            ? Effect.succeed(undefined)
            : oidcClient
                .endSessionUrl(postLogoutRedirectUri)
                .pipe(Effect.map((url) => (Option.isSome(url) ? new URL(url.value).origin : undefined)))
      })
    })
  )
