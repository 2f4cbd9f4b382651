import { grants, type Principal, RateLimited } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** How fast one credential may create auth requests. */
export interface CreateRatePolicy {
  /** Requests one credential may create at once. */
  readonly burst: number
  /** Requests a second that come back to it. */
  readonly perSecond: number
  /** Most credentials tracked; the least recently seen is forgotten first. */
  readonly maxEntries: number
}

/**
 * 20 a second, 100 at once: an SSH gate makes one request per held login, so only a gate whose users log in by the
 * hundred in the same moment would meet it, while a stolen gate key makes 20 a second instead of 600.
 */
export const defaultCreateRatePolicy: CreateRatePolicy = { burst: 100, perSecond: 20, maxEntries: 10_000 }

interface Bucket {
  tokens: number
  at: number
}

/**
 * A token bucket per credential (its principal's subject: `api-key:ssh-gate`), taken from by every create over
 * any transport, so gRPC and HTTP share one allowance. It holds for credentials that may create but not decide
 * (`auth_requests:create` without `auth_requests:write`): the SSH gate's key, the one kept on a machine exposed to
 * the network. An operator's or admin's key, which may already approve anything and create registrations, is not
 * held: provisioning and benchmarks create at thousands a second with it. Time comes from `Clock`.
 */
export const makeCreateLimit = (policy: CreateRatePolicy = defaultCreateRatePolicy) => {
  const buckets = new Map<string, Bucket>()
  const perMs = policy.perSecond / 1000

  const refilled = (key: string, now: number): Bucket => {
    const found = buckets.get(key)
    const bucket = found ?? { tokens: policy.burst, at: now }
    bucket.tokens = Math.min(policy.burst, bucket.tokens + Math.max(0, now - bucket.at) * perMs)
    bucket.at = now
    buckets.delete(key)
    buckets.set(key, bucket) // most recently used last
    if (buckets.size > policy.maxEntries) buckets.delete(buckets.keys().next().value!)
    return bucket
  }

  /** Takes one create from the principal's allowance, or fails with `RateLimited` (nothing taken). */
  const take = (principal: Principal): Effect.Effect<void, RateLimited> =>
    grants(principal.scopes, "auth_requests:write")
      ? Effect.void
      : Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const bucket = refilled(principal.subject, now)
          if (bucket.tokens >= 1) {
            bucket.tokens -= 1
            return Effect.void
          }
          const waitMs = (1 - bucket.tokens) / perMs
          return Effect.fail(
            new RateLimited({
              message:
                `too many auth requests from ${principal.subject}: at most ${policy.perSecond} a second ` +
                `(${policy.burst} at once)`,
              retry_after_s: Math.max(1, Math.ceil(waitMs / 1000))
            })
          )
        })

  return { take }
}
