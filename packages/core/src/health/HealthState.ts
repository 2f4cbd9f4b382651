import type { HealthInfo, HealthStatusString } from "@gatehouse-edge/contract/domain"
import * as DateTime from "effect/DateTime"
import type { CheckResult } from "./CheckResult.js"

/** What the Health service remembers about one route between checks. */
export interface RouteHealth {
  readonly status: HealthStatusString
  /** When the route entered `status` (epoch ms), for `uptime_s`. */
  readonly since_ms: number
  readonly latency_ms: number
  readonly last_check_ms: number | null
  /** `last_check_ms` as RFC 3339, formatted once per check rather than on every read of the map. */
  readonly last_check: string | null
  /** Consecutive failed checks so far. */
  readonly failures: number
  readonly error: string | null
  /**
   * The status event followers last learned of, kept after an edit restarted the route's monitor (`starting`) or
   * removed it (`unknown`), and while a check answers `starting` (a container's HEALTHCHECK in its start period):
   * the route has no verdict then, but is still down (or up) for them. Absent otherwise.
   */
  readonly reported?: HealthStatusString | undefined
  /**
   * When the route entered `reported` (epoch ms): an edit that restarts the monitor does not restart `uptime_s`
   * when the new monitor's first verdict is the status the route was already in. Present with `reported`.
   */
  readonly reported_since_ms?: number | undefined
}

/** A status change: the map changes, and `eventOf` decides whether operators are told. */
export interface Transition {
  /** The status the route was reported in before: `starting` only while it never had another (a new route). */
  readonly previous: HealthStatusString
  readonly next: HealthStatusString
  readonly result: CheckResult
}

/** A route that was just added: `starting` when a monitor will run, `unknown` when none will. */
export const initialHealth = (monitored: boolean, now: number): RouteHealth => ({
  status: monitored ? "starting" : "unknown",
  since_ms: now,
  latency_ms: 0,
  last_check_ms: null,
  last_check: null,
  failures: 0,
  error: null
})

/**
 * The health of a route whose monitor an edit replaced (or removed): `starting` (or `unknown`) afresh on the map,
 * yet for events still in the status it was last reported in. An edit is neither a new outage nor a recovery: the
 * usual fix of a down route (its port or path) must end in `health/up`, and a route edited while still down must
 * not be reported down again.
 */
export const restartedHealth = (before: RouteHealth, monitored: boolean, now: number): RouteHealth => {
  const reported = reportedOf(before)
  const fresh = initialHealth(monitored, now)
  return hasVerdict(reported)
    ? { ...fresh, reported, reported_since_ms: before.reported_since_ms ?? before.since_ms }
    : fresh
}

const isDown = (status: HealthStatusString): boolean => status === "unhealthy" || status === "error"

/** `starting` and `unknown` say nothing about whether the route is up or down. */
const hasVerdict = (status: HealthStatusString): boolean => status !== "starting" && status !== "unknown"

const reportedOf = (health: RouteHealth): HealthStatusString => health.reported ?? health.status

/**
 * Applies one check result. `retries` is the number of consecutive failed checks a route reported *healthy* is
 * allowed before it is reported down, so it flips on failure number `retries + 1` (retries happen on the normal
 * interval). That includes a route whose monitor an edit restarted (`starting`, reported healthy): raising
 * `retries` for a flaky target must not itself bring the alert it was meant to spare. A route that is new (or was
 * down) takes its first result as is: there is no known-good state to protect. A down route recovers on the first
 * passing check.
 */
export const applyResult = (
  current: RouteHealth,
  result: CheckResult,
  retries: number,
  now: number
): { readonly health: RouteHealth; readonly transition: Transition | undefined } => {
  const failures = result.status === "healthy" ? 0 : current.failures + 1
  const reported = reportedOf(current)
  const tolerated = reported === "healthy" && result.status !== "healthy" && failures <= retries
  // A tolerated failure leaves the status as it was: `healthy`, or `starting` while the new monitor has no verdict.
  const next: HealthStatusString = tolerated ? current.status : result.status
  const health: RouteHealth = {
    status: next,
    since_ms: sinceOf(current, next, now),
    // A tolerated failure measured no healthy answer: its latency (a timeout's is the whole timeout) shown as the
    // healthy route's would mislead, and the uptime average of healthy latencies would count it.
    latency_ms: tolerated ? current.latency_ms : result.latency_ms,
    last_check_ms: now,
    last_check: DateTime.formatIso(DateTime.makeUnsafe(now)),
    failures,
    error: result.error ?? null,
    ...(next === "starting" && hasVerdict(reported) ? { reported, reported_since_ms: current.reported_since_ms } : {})
  }
  return {
    health,
    transition: next === current.status ? undefined : { previous: reported, next, result }
  }
}

/** When the route entered `next`: unchanged while the status is, and kept across an edit that confirmed it. */
const sinceOf = (current: RouteHealth, next: HealthStatusString, now: number): number =>
  next === current.status
    ? current.since_ms
    : next === current.reported && current.reported_since_ms !== undefined
      ? current.reported_since_ms
      : now

/** The event a transition deserves: `down` entering unhealthy/error, `up` leaving it for healthy, else none. */
export const eventOf = (t: Transition): "up" | "down" | undefined =>
  isDown(t.next) && !isDown(t.previous) ? "down" : t.next === "healthy" && isDown(t.previous) ? "up" : undefined

/** The public view of one route at `now`. */
export const toInfo = (h: RouteHealth, now: number): HealthInfo => ({
  status: h.status,
  latency_ms: h.latency_ms,
  uptime_s: Math.max(0, Math.floor((now - h.since_ms) / 1000)),
  last_check: h.last_check
})
