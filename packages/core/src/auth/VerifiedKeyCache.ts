import { Clock, Effect } from "effect"
import type { Principal } from "../domain/Principal.js"

/** Options of {@link makeVerifiedKeyCache}. */
export interface VerifiedKeyCacheOptions {
  /** How long a verified key is taken as valid without checking it again (a revoked key stops working then). */
  readonly ttlMs: number
  /** Most keys remembered; the oldest is forgotten first. */
  readonly maxEntries: number
}

/**
 * Remembers keys that verified, so a client sending the same key on every request costs a map lookup instead of a
 * SHA-256 and a store lookup. Only successes are remembered (random wrong keys cannot grow it), for `ttlMs` at
 * most; `forget` drops every entry at once, e.g. when a key is revoked.
 */
export const makeVerifiedKeyCache = (options: VerifiedKeyCacheOptions) => {
  const entries = new Map<string, { readonly principal: Principal; readonly at: number }>()
  return {
    lookup: (key: string, verify: Effect.Effect<Principal | undefined>): Effect.Effect<Principal | undefined> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const hit = entries.get(key)
        if (hit !== undefined && now - hit.at < options.ttlMs) return Effect.succeed(hit.principal)
        if (hit !== undefined) entries.delete(key)
        return Effect.tap(verify, (principal) =>
          Effect.sync(() => {
            if (principal === undefined) return
            if (entries.size >= options.maxEntries) entries.delete(entries.keys().next().value!)
            entries.set(key, { principal, at: now })
          })
        )
      }),
    forget: Effect.sync(() => entries.clear()),
    size: Effect.sync(() => entries.size)
  }
}
