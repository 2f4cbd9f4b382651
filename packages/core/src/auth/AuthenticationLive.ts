import type { Principal, PrincipalApiKey } from "@gatehouse-edge/contract/domain"
import { Unauthenticated } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Redacted from "effect/Redacted"
import { apiKeyPrefix, keyMatches } from "./ApiKeyFormat.js"
import { ApiKeyRepository, type StoredApiKey } from "./ApiKeyRepository.js"
import { Authentication, type Credential } from "./Authentication.js"
import { makeRevocations, type Revocation, sleepUntil, untilRevoked } from "./CredentialEnd.js"
import { Sessions } from "./Sessions.js"
import { makeVerifiedKeyCache } from "./VerifiedKeyCache.js"

const principalOf = (key: StoredApiKey): Principal => ({
  method: "api_key",
  subject: `api-key:${key.name}`,
  roles: key.roles,
  scopes: key.scopes,
  api_key: { prefix: key.prefix, expires_at: key.expires_at }
})

const isPast = (time: string | null, now: number) => time !== null && Date.parse(time) <= now

/**
 * {@link Authentication} over the stored API keys and the browser sessions. A key is valid when its prefix is
 * stored, its hash matches (compared in constant time), and it is neither revoked nor expired. Keys that verified
 * are taken as valid for a minute without checking again (a script sends its key on every request), unless
 * `keyRevoked` runs first (revoking a key through the API does); `last_used_at` is written when a key is
 * verified, so at most once a minute per key. Session cookies are judged by {@link Sessions}.
 */
export const layer: Layer.Layer<Authentication, never, ApiKeyRepository | Sessions> = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const keys = yield* ApiKeyRepository
    const sessions = yield* Sessions
    const cache = makeVerifiedKeyCache({ ttlMs: 60_000, maxEntries: 1024 })
    const revocations = yield* makeRevocations

    // What the store says of a key a stream was opened with: revoked (or gone), or undefined while it is not.
    const revocationOf = (prefix: string): Effect.Effect<Revocation | undefined> =>
      Effect.map(keys.findByPrefix(prefix), (found) =>
        Option.isNone(found) || found.value.revoked_at !== null ? { id: prefix, message: "API key revoked" } : undefined
      )

    const keyValidUntilRevoked = (key: PrincipalApiKey): Effect.Effect<never, Unauthenticated> => {
      const revoked = untilRevoked(revocations, key.prefix, revocationOf(key.prefix))
      if (key.expires_at === null) return revoked
      const expired = Effect.andThen(
        sleepUntil(Date.parse(key.expires_at)),
        Effect.fail(new Unauthenticated({ message: "API key expired" }))
      )
      return Effect.raceFirst(revoked, expired)
    }

    // The work (a store lookup, SHA-256, recording the use) has its span; a cached key has none.
    const verify = Effect.fn("Authentication.verify")(function* (token: string) {
      const prefix = apiKeyPrefix(token)
      if (prefix === undefined) return undefined
      const stored = yield* keys.findByPrefix(prefix)
      if (Option.isNone(stored)) return undefined
      const key = stored.value
      const now = yield* Clock.currentTimeMillis
      if (key.revoked_at !== null || isPast(key.expires_at, now) || !keyMatches(token, key.sha256)) return undefined
      // Best effort: a store that cannot write (a full disk) must not turn every request with a key into a 500.
      yield* keys
        .touch(key.id, DateTime.formatIso(DateTime.makeUnsafe(now)))
        .pipe(
          Effect.catchDefect((defect) => Effect.logWarning(`recording the use of API key ${prefix} failed`, defect))
        )
      return {
        principal: principalOf(key),
        expiresAt: key.expires_at === null ? undefined : Date.parse(key.expires_at)
      }
    })

    // `verify(token)` is built only on a cache miss: building an `Effect.fn` call (its span, its call site) costs
    // more than the whole lookup of a cached key (measured: 6% of the server's CPU under load on /health).
    const byKey = (token: string) =>
      Effect.flatMap(
        cache.lookup(
          token,
          Effect.suspend(() => verify(token))
        ),
        (principal) =>
          principal === undefined
            ? Effect.fail(new Unauthenticated({ message: "missing or invalid API key" }))
            : Effect.succeed(principal)
      )

    return Authentication.of({
      // Runs on every request, so it is chained rather than an `Effect.fn`: measured, the generator and the span
      // (a context change every later lookup pays for) cost more than the rest of authenticating a cached key.
      authenticate: (credential: Credential) =>
        credential._tag === "ApiKey" ? byKey(Redacted.value(credential.key)) : sessions.authenticate(credential.cookie),
      keyRevoked: Effect.fn("Authentication.keyRevoked")(function* (prefix: string) {
        yield* cache.forget
        yield* PubSub.publish(revocations, { id: prefix, message: "API key revoked" })
      }),
      validUntilRevoked: Effect.fn("Authentication.validUntilRevoked")(function* (principal: Principal) {
        if (principal.api_key !== undefined) return yield* keyValidUntilRevoked(principal.api_key)
        if (principal.session !== undefined) return yield* sessions.validUntilEnded(principal.session)
        // The unix socket's principal proves no credential: nothing can be revoked.
        return yield* Effect.never
      })
    })
  })
)
