import type { AuthMethod, Principal, PrincipalSession, Role, SessionInfo } from "@gatehouse-edge/contract/domain"
import { LogoutEvent, SessionNotFound, scopesOfRole, Unauthenticated } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Redacted from "effect/Redacted"
import { Events } from "../events/Events.js"
import { makeRevocations, type Revocation, sleepUntil, untilRevoked } from "./CredentialEnd.js"
import { ServerSecrets } from "./ServerSecrets.js"
import { type SessionRecord, SessionRepository } from "./SessionRepository.js"
import { type NewSession, Sessions } from "./Sessions.js"
import { makePasswordFingerprints, makeSessionTokens, newPublicId, sha256Of as sha256 } from "./SessionTokens.js"

/** Options of {@link layer}. */
export interface SessionsOptions {
  /** How long a session lasts after its last renewal (`auth.session_ttl`). */
  readonly ttlMs: number
  /**
   * What a session's holder has under the configuration the server runs with now: `undefined` when they may no
   * longer sign in (a user removed from `auth.users`, an OIDC user no longer admitted), and the session is revoked
   * at its next use. Default: the roles the session was created with.
   */
  readonly currentRoles?: ((session: SessionHolder) => CurrentAccess | undefined) | undefined
}

/** Who a session was issued to, and on what, as {@link SessionsOptions.currentRoles} judges it. */
export interface SessionHolder {
  readonly subject: string
  readonly method: AuthMethod
  readonly roles: ReadonlyArray<Role>
  /** The claims an OpenID Connect sign-in was admitted on; `null` for a session stored before they were kept. */
  readonly oidc_claims: Readonly<Record<string, unknown>> | null
}

/** What the configuration gives a session's holder now. */
export interface CurrentAccess {
  readonly roles: ReadonlyArray<Role>
  /**
   * For a password session: the user's password hash now. A session signed in under another hash ends; one stored
   * before sessions kept a fingerprint of theirs takes this one as its own.
   */
  readonly passwordHash?: Redacted.Redacted<string> | undefined
}

const iso = (ms: number) => DateTime.formatIso(DateTime.makeUnsafe(ms))

const infoOf = (record: SessionRecord): SessionInfo => ({
  id: record.id,
  subject: record.subject,
  method: record.method,
  roles: record.roles,
  address: record.address,
  user_agent: record.user_agent,
  created_at: iso(record.created_at),
  expires_at: iso(record.expires_at),
  renewed_at: iso(record.renewed_at)
})

const expired = Effect.fail(new Unauthenticated({ message: "session expired or signed out: sign in again" }))

const CACHE_MS = 5_000
const CACHE_ENTRIES = 4096

// A day past their end, ended sessions are deleted (when a new one is created: no timer needed).
const KEEP_ENDED_MS = 86_400_000

/**
 * {@link Sessions} on the store. A session that checked out is taken as valid for up to 5 seconds without asking
 * the store again (never past its renewal or expiry; ending or revoking any session forgets them). A session is
 * renewed (its expiry moved to now + ttl) when a request uses it and its last renewal is older than a tenth of the
 * ttl (at most a minute): a busy browser costs one store write a minute, and a session ends `ttl` after its last
 * use, give or take that. Its roles are those the configuration gives its holder now (`currentRoles`): an OIDC
 * session is admitted again on the claims of its sign-in, and a password session ends once its user's password hash
 * is no longer the one it was signed in under (it keeps a fingerprint of that hash, keyed with a server secret).
 */
export const layer = (
  options: SessionsOptions
): Layer.Layer<Sessions, never, SessionRepository | ServerSecrets | Events> =>
  Layer.effect(
    Sessions,
    Effect.gen(function* () {
      const repository = yield* SessionRepository
      const events = yield* Events
      const secrets = yield* ServerSecrets
      const tokens = makeSessionTokens(yield* secrets.get("session_cookie"))
      const fingerprints = makePasswordFingerprints(yield* secrets.get("session_password_fingerprint"))
      const renewEveryMs = Math.min(60_000, options.ttlMs / 10)
      // Sessions that checked out, for a few seconds (not past their renewal or expiry): a busy page costs a map
      // lookup per request instead of a store query. Ending or revoking a session here forgets them all at once;
      // a revocation by another replica of a shared store takes effect within CACHE_MS.
      const verified = new Map<string, { readonly principal: Principal; readonly until: number }>()
      // Counts forgets: a lookup that read its row before an end or a revocation committed must not store what it
      // read after the cache was cleared, or the ended session would be taken for valid until its entry lapsed.
      let generation = 0
      const remember = (cookie: string, principal: Principal, until: number, readIn: number) => {
        if (readIn !== generation) return
        if (verified.size >= CACHE_ENTRIES) verified.delete(verified.keys().next().value!)
        verified.set(cookie, { principal, until })
      }
      const forget = Effect.sync(() => {
        generation += 1
        verified.clear()
      })
      // Sessions ended here (logout, revocation), for the streams opened with them.
      const revocations = yield* makeRevocations
      const announce = (id: string, message: string) => PubSub.publish(revocations, { id, message })

      // What the store says of a session a stream was opened with: why it ended, or undefined while it is active.
      const endOf = (id: string): Effect.Effect<Revocation | undefined> =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.map(repository.findById(id), (found) => {
            if (Option.isNone(found) || found.value.revoked_at !== null) return { id, message: "session revoked" }
            return found.value.expires_at <= now ? { id, message: "session expired" } : undefined
          })
        )

      // At the session's expiry, the store decides: a session renewed meanwhile (the browser's other requests slide
      // it) lives on until its new expiry.
      const untilExpired = (id: string, expiresAt: number): Effect.Effect<never, Unauthenticated> =>
        Effect.andThen(sleepUntil(expiresAt), () =>
          Effect.flatMap(repository.findById(id), (found) =>
            Option.isSome(found) && found.value.revoked_at === null && found.value.expires_at > expiresAt
              ? untilExpired(id, found.value.expires_at)
              : Effect.fail(new Unauthenticated({ message: "session expired" }))
          )
        )

      const currentRoles = options.currentRoles ?? ((holder: SessionHolder) => ({ roles: holder.roles }))
      const principalOf = (
        record: SessionRecord,
        roles: ReadonlyArray<Role>,
        renewed: boolean,
        expiresAt: number
      ): Principal => ({
        method: record.method,
        subject: record.subject,
        roles,
        scopes: roles.length === 1 ? scopesOfRole(roles[0]!) : [...new Set(roles.flatMap(scopesOfRole))],
        session: { id: record.id, expires_at: iso(expiresAt), renewed }
      })
      // Ended by the configuration: recorded like a revocation (with its event, in one transaction; the cache and the
      // session's streams told), so the history says why a user was signed out. Of requests racing with one cookie,
      // only the one whose update ended it records it.
      const endedBecause = (record: SessionRecord, now: number, why: string) =>
        Effect.andThen(
          Effect.uninterruptible(
            Effect.tap(
              events.transaction(
                Effect.map(repository.revoke(record.id, now), (ended) => ({
                  value: ended,
                  events: Option.isSome(ended)
                    ? [LogoutEvent.make({ subject: record.subject, session_id: record.id, by: "config", reason: why })]
                    : []
                }))
              ),
              (ended) => (Option.isSome(ended) ? Effect.andThen(forget, announce(record.id, why)) : Effect.void)
            )
          ),
          Effect.fail(new Unauthenticated({ message: why }))
        )
      // A password session is bound to the hash it was signed in with: another hash in the config means the password
      // was changed (perhaps because it leaked), and whoever signed in with the old one must sign in again. A session
      // stored before fingerprints were kept takes the current hash's (best effort, as renewing): signing every user
      // out at an upgrade would be the other choice.
      const passwordBinding = (
        record: SessionRecord,
        access: CurrentAccess
      ): "same" | "changed" | { readonly adopt: string } => {
        if (access.passwordHash === undefined) return "same"
        const hash = Redacted.value(access.passwordHash)
        if (record.password_fingerprint === null) return { adopt: fingerprints.of(hash) }
        return fingerprints.matches(hash, record.password_fingerprint) ? "same" : "changed"
      }
      const adopt = (record: SessionRecord, fingerprint: string) =>
        repository
          .adoptPasswordFingerprint(record.id, fingerprint)
          .pipe(
            Effect.catchDefect((defect) =>
              Effect.logWarning("recording a session's password fingerprint failed", defect)
            )
          )

      const activeRecord = Effect.fn("Sessions.lookup")(function* (cookie: Redacted.Redacted<string>) {
        const token = tokens.verify(Redacted.value(cookie))
        if (token === undefined) return Option.none<SessionRecord>()
        const now = yield* Clock.currentTimeMillis
        const found = yield* repository.findByToken(sha256(token))
        return Option.filter(found, (record) => record.revoked_at === null && record.expires_at > now)
      })

      return Sessions.of({
        ttlMs: options.ttlMs,
        create: Effect.fn("Sessions.create")(function* (input: NewSession) {
          const now = yield* Clock.currentTimeMillis
          yield* repository.prune(now - KEEP_ENDED_MS)
          const issued = tokens.issue()
          const passwordHash = input.passwordHash
          const record: SessionRecord = {
            id: newPublicId("s_"),
            token_sha256: issued.sha256,
            subject: input.subject,
            method: input.method,
            roles: [input.role],
            address: input.address,
            user_agent: input.userAgent.slice(0, 256),
            created_at: now,
            expires_at: now + options.ttlMs,
            renewed_at: now,
            revoked_at: null,
            password_fingerprint: passwordHash === undefined ? null : fingerprints.of(Redacted.value(passwordHash)),
            oidc_claims: input.oidcClaims ?? null
          }
          yield* repository.insert(record)
          return {
            cookie: Redacted.make(issued.cookie),
            csrfToken: tokens.csrfOf(issued.token),
            session: infoOf(record)
          }
        }),
        // Runs on every request with a cookie, so it is chained rather than an `Effect.fn` (as API keys are: the
        // generator and span cost more than the store lookup). A bad signature is refused before the store is asked.
        authenticate: (cookie: Redacted.Redacted<string>) => {
          const value = Redacted.value(cookie)
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const hit = verified.get(value)
            if (hit !== undefined && now < hit.until) return Effect.succeed(hit.principal)
            if (hit !== undefined) verified.delete(value)
            const token = tokens.verify(value)
            if (token === undefined) return expired
            const readIn = generation
            return Effect.flatMap(repository.findByToken(sha256(token)), (found) => {
              if (Option.isNone(found)) return expired
              const record = found.value
              if (record.revoked_at !== null || record.expires_at <= now) return expired
              // Users and roles come from the config: a user removed or demoted since does not keep the old access.
              const access = currentRoles(record)
              if (access === undefined) {
                return endedBecause(record, now, `${record.subject} may no longer sign in: session ended`)
              }
              const binding = passwordBinding(record, access)
              if (binding === "changed") {
                return endedBecause(
                  record,
                  now,
                  `the password of ${record.subject} has changed since this sign-in: session ended, sign in again`
                )
              }
              const roles = access.roles
              const answer = () => {
                if (now - record.renewed_at < renewEveryMs) {
                  const principal = principalOf(record, roles, false, record.expires_at)
                  remember(
                    value,
                    principal,
                    Math.min(now + CACHE_MS, record.renewed_at + renewEveryMs, record.expires_at),
                    readIn
                  )
                  return Effect.succeed(principal)
                }
                return repository.renew(record.id, now, now + options.ttlMs).pipe(
                  Effect.as(principalOf(record, roles, true, now + options.ttlMs)),
                  // A store that cannot write (a full disk) signs nobody out: the session lasts to its current expiry.
                  Effect.catchDefect((defect) =>
                    Effect.as(
                      Effect.logWarning("renewing a session failed; it lasts until its current expiry", defect),
                      principalOf(record, roles, false, record.expires_at)
                    )
                  )
                )
              }
              return typeof binding === "object" ? Effect.andThen(adopt(record, binding.adopt), answer) : answer()
            })
          })
        },
        csrfTokenOf: (cookie: Redacted.Redacted<string>) => {
          const token = tokens.verify(Redacted.value(cookie))
          return token === undefined ? undefined : tokens.csrfOf(token)
        },
        csrfMatches: (cookie: Redacted.Redacted<string>, presented: string) => {
          const token = tokens.verify(Redacted.value(cookie))
          return token !== undefined && tokens.csrfMatches(token, presented)
        },
        end: Effect.fn("Sessions.end")(function* (cookie: Redacted.Redacted<string>) {
          const found = yield* activeRecord(cookie)
          if (Option.isNone(found)) return Option.none()
          const now = yield* Clock.currentTimeMillis
          // The sign-out and its event commit together; the cache and the session's streams are told in the same
          // uninterruptible step, so a client that goes away meanwhile cannot leave them holding an ended session.
          const revoked = yield* Effect.uninterruptible(
            Effect.tap(
              events.transaction(
                Effect.map(repository.revoke(found.value.id, now), (ended) => ({
                  value: ended,
                  events: Option.isSome(ended)
                    ? [
                        LogoutEvent.make({
                          subject: ended.value.subject,
                          session_id: ended.value.id,
                          by: ended.value.subject
                        })
                      ]
                    : []
                }))
              ),
              () => Effect.andThen(forget, announce(found.value.id, "session signed out"))
            )
          )
          return Option.map(revoked, infoOf)
        }),
        revoke: Effect.fn("Sessions.revoke")(function* (id: string, by: string) {
          const now = yield* Clock.currentTimeMillis
          // The revocation and its event commit together, and the cache and the session's streams are told in the
          // same uninterruptible step (see `end`).
          const revoked = yield* Effect.uninterruptible(
            Effect.tap(
              events.transaction(
                Effect.map(repository.revoke(id, now), (found) => ({
                  value: found,
                  events: Option.isSome(found)
                    ? [LogoutEvent.make({ subject: found.value.subject, session_id: id, by })]
                    : []
                }))
              ),
              (found) => Effect.andThen(forget, Option.isSome(found) ? announce(id, "session revoked") : Effect.void)
            )
          )
          if (Option.isNone(revoked)) return yield* new SessionNotFound({ id })
          return infoOf(revoked.value)
        }),
        validUntilEnded: Effect.fn("Sessions.validUntilEnded")(function* (session: PrincipalSession) {
          return yield* Effect.raceFirst(
            untilRevoked(revocations, session.id, endOf(session.id)),
            untilExpired(session.id, Date.parse(session.expires_at))
          )
        }),
        list: Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.map(repository.listActive(now), (records) => records.map(infoOf))
        ).pipe(Effect.withSpan("Sessions.list"))
      })
    })
  )
