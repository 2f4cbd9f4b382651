import * as Duration from "effect/Duration"

/**
 * How long a request that ended without a verdict (expired by its TTL or pushed out by the pending cap) is kept:
 * an hour, against `auth_requests.retention` (30 days) for verdicts. It records no decision anyone audits (its
 * `auth_request/expired` event says it expired), and the SSH gate's key alone makes as many as it likes: at the
 * retention of verdicts a stolen key could fill the disk (about 80 GB a day at the rate one key reaches). An hour
 * still lets a waiter that reconnects read `expired` rather than 404.
 */
export const undecidedRetention = Duration.hours(1)

/**
 * The most requests that ended without a verdict kept at once, the oldest deleted first: an hour of a flood must
 * not grow the store either. About: the sweeper trims them, woken every hundredth of this many new requests. Ten
 * thousand is hours of a busy gate whose logins all expired (one request per SSH login), a few megabytes.
 */
export const maxUndecidedKept = 10_000
