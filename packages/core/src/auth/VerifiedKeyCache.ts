import type { Principal } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** Options of {@link makeVerifiedKeyCache}. */
export interface VerifiedKeyCacheOptions {
  /** How long a verified key is taken as valid without checking it again (a revoked key stops working then). */
  readonly ttlMs: number
  /** Most keys remembered; the oldest is forgotten first. */
  readonly maxEntries: number
}

/** A key that verified: who it is, and when the key itself expires (epoch ms), if it does. */
export interface VerifiedKey {
  readonly principal: Principal
  readonly expiresAt?: number | undefined
}

/**
 * Remembers keys that verified, so a client sending the same key on every request costs a map lookup instead of a
 * SHA-256 and a store lookup. Only successes are remembered (random wrong keys cannot grow it), for `ttlMs` at
 * most and never past the key's own expiry; `forget` drops every entry at once, e.g. when a key is revoked, and
 * no verification already under way when it runs is remembered after it.
 */
export const makeVerifiedKeyCache = (options: VerifiedKeyCacheOptions) => {
  const entries = new Map<string, { readonly principal: Principal; readonly until: number }>()
  // Counts `forget`s. A verification that began before one may have read a key row from before the revocation
  // committed: its request gets its answer, but remembering it would keep a revoked key valid for up to `ttlMs`.
  let generation = 0

  const remember = (key: string, verified: VerifiedKey, now: number) => {
    if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!)
    const until = Math.min(now + options.ttlMs, verified.expiresAt ?? Number.POSITIVE_INFINITY)
    entries.set(key, { principal: verified.principal, until })
  }

  return {
    lookup: (key: string, verify: Effect.Effect<VerifiedKey | undefined>): Effect.Effect<Principal | undefined> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = entries.get(key)
        if (hit !== undefined && now < hit.until) return Effect.succeed(hit.principal)
        if (hit !== undefined) entries.delete(key)
        const startedIn = generation
        return Effect.map(verify, (verified) => {
          if (verified === undefined) return undefined
          if (startedIn === generation) remember(key, verified, now)
          return verified.principal
        })
      }),
    forget: Effect.sync(() => {
      generation++
      entries.clear()
    }),
    size: Effect.sync(() => entries.size)
  }
}
