import { clientKeyOf } from "@gatehouse-edge/contract/domain"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/** How many sign-in attempts are let through, and how fast the allowance comes back. */
export interface ThrottlePolicy {
  /** Attempts one client may make in a burst (an IPv4 address, or an IPv6 /64: see `clientKeyOf`). */
  readonly perAddress: number
  /** Failed attempts one user name may have in a burst, from any address. */
  readonly perUser: number
  /** One attempt of each allowance comes back every this many milliseconds. */
  readonly refillMs: number
  /** Most buckets kept; the oldest is forgotten first (a flood of new addresses cannot grow memory). */
  readonly maxEntries: number
}

/** The default: 10 attempts per address and 5 failures per user name, one more every 6 seconds. */
export const defaultThrottlePolicy: ThrottlePolicy = { perAddress: 10, perUser: 5, refillMs: 6_000, maxEntries: 10_000 }

interface Bucket {
  tokens: number
  at: number
}

/**
 * Token buckets for sign-in: every attempt takes one from its client's bucket and one from the user name's, and a
 * success gives the user name's back, so neither guessing many passwords from one address nor one user's password
 * from many addresses gets far. The user name's token is taken before the password is checked: attempts sent at
 * once cannot all pass a check that only a finished failure would have counted. An attempt its client may not make
 * touches no user name's bucket, so a flood of refused attempts under made-up names cannot push a locked user
 * name's bucket out of the map (and its count with it). A client is an IPv4 address or an IPv6 /64
 * (`clientKeyOf`): one IPv6 host can speak from every address of its /64. Time comes from `Clock` (tests drive it
 * with `TestClock`).
 */
export const makeLoginThrottle = (policy: ThrottlePolicy = defaultThrottlePolicy) => {
  const addresses = new Map<string, Bucket>()
  const users = new Map<string, Bucket>()

  const refill = (buckets: Map<string, Bucket>, key: string, capacity: number, now: number): Bucket => {
    const bucket = buckets.get(key) ?? { tokens: capacity, at: now }
    const earned = Math.floor((now - bucket.at) / policy.refillMs)
    if (earned > 0) {
      bucket.tokens = Math.min(capacity, bucket.tokens + earned)
      bucket.at = bucket.tokens === capacity ? now : bucket.at + earned * policy.refillMs
    }
    buckets.delete(key)
    buckets.set(key, bucket) // most recently used last
    if (buckets.size > policy.maxEntries) buckets.delete(buckets.keys().next().value!)
    return bucket
  }

  const retryAfterSeconds = (bucket: Bucket, now: number) =>
    Math.max(1, Math.ceil((bucket.at + policy.refillMs - now) / 1000))

  return {
    /**
     * Takes an attempt from the client's allowance and one from the user name's; `undefined` when it may go
     * ahead, else the seconds until it may try again (either allowance is used up, and nothing was taken).
     */
    attempt: (address: string, username: string): Effect.Effect<number | undefined> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const byAddress = refill(addresses, clientKeyOf(address), policy.perAddress, now)
        if (byAddress.tokens <= 0) return retryAfterSeconds(byAddress, now)
        const byUser = refill(users, username, policy.perUser, now)
        if (byUser.tokens <= 0) return retryAfterSeconds(byUser, now)
        byAddress.tokens -= 1
        byUser.tokens -= 1
        return undefined
      }),
    /**
     * Takes an attempt from the address's allowance alone (starting an OIDC sign-in names no user); `undefined`
     * when it may go ahead, else the seconds until it may try again.
     */
    attemptFrom: (address: string): Effect.Effect<number | undefined> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const byAddress = refill(addresses, clientKeyOf(address), policy.perAddress, now)
        if (byAddress.tokens <= 0) return retryAfterSeconds(byAddress, now)
        byAddress.tokens -= 1
        return undefined
      }),
    /** Gives back the user name's token its successful attempt took: only failures count against a user name. */
    succeeded: (username: string): Effect.Effect<void> =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const bucket = refill(users, username, policy.perUser, now)
        bucket.tokens = Math.min(policy.perUser, bucket.tokens + 1)
      })
  }
}

/** A login throttle. */
export type LoginThrottle = ReturnType<typeof makeLoginThrottle>
