import { assert, describe, it } from "@effect/vitest"
import type { HealthStatusString } from "@gatehouse-edge/contract/domain"
import type { CheckResult } from "../../src/health/CheckResult.js"
import {
  applyResult,
  eventOf,
  initialHealth,
  type RouteHealth,
  restartedHealth,
  toInfo
} from "../../src/health/HealthState.js"

const pass: CheckResult = { status: "healthy", latency_ms: 3 }
const fail: CheckResult = { status: "unhealthy", latency_ms: 7, error: "HTTP 503" }
const broken: CheckResult = { status: "error", latency_ms: 0, error: "no root" }
const warmingUp: CheckResult = { status: "starting", latency_ms: 0 }

/** Feeds results one per second from t=1000 and returns the status after each. */
const statuses = (results: ReadonlyArray<CheckResult>, retries: number, start = initialHealth(true, 0)) => {
  let h: RouteHealth = start
  const seen: Array<HealthStatusString> = []
  results.forEach((r, i) => {
    h = applyResult(h, r, retries, 1000 * (i + 1)).health
    seen.push(h.status)
  })
  return seen
}

describe("HealthState", () => {
  it("a fresh route is starting (monitored) or unknown (not monitored)", () => {
    assert.strictEqual(initialHealth(true, 0).status, "starting")
    assert.strictEqual(initialHealth(false, 0).status, "unknown")
  })

  it("starting takes the first result as is, without retries", () => {
    assert.deepStrictEqual(statuses([pass], 3), ["healthy"])
    assert.deepStrictEqual(statuses([fail], 3), ["unhealthy"])
    assert.deepStrictEqual(statuses([broken], 3), ["error"])
  })

  it("a healthy route tolerates `retries` consecutive failures and flips on the next", () => {
    assert.deepStrictEqual(statuses([pass, fail, fail, fail], 2), ["healthy", "healthy", "healthy", "unhealthy"])
    assert.deepStrictEqual(statuses([pass, fail], 0), ["healthy", "unhealthy"])
    // A pass in between resets the count.
    assert.deepStrictEqual(statuses([pass, fail, fail, pass, fail, fail], 2), [
      "healthy",
      "healthy",
      "healthy",
      "healthy",
      "healthy",
      "healthy"
    ])
  })

  it("a tolerated failure keeps the last healthy latency: a timeout is no healthy answer", () => {
    const timeout: CheckResult = { status: "unhealthy", latency_ms: 5000, error: "no answer within 5000 ms" }
    let h = applyResult(initialHealth(true, 0), pass, 3, 1000).health
    const latencies: Array<[HealthStatusString, number]> = []
    for (let i = 1; i <= 4; i++) {
      h = applyResult(h, timeout, 3, 1000 + i * 1000).health
      latencies.push([h.status, toInfo(h, 1000 + i * 1000).latency_ms])
    }
    // Reported down, the failed check's latency is what the route shows.
    assert.deepStrictEqual(latencies, [
      ["healthy", 3],
      ["healthy", 3],
      ["healthy", 3],
      ["unhealthy", 5000]
    ])
  })

  it("an edit does not cost a healthy route its retries: no down before failure number `retries + 1`", () => {
    const healthy = applyResult(initialHealth(true, 0), pass, 3, 1000).health
    let h = restartedHealth(healthy, true, 2000)
    const seen: Array<[HealthStatusString, "up" | "down" | undefined]> = []
    for (let i = 1; i <= 4; i++) {
      const applied = applyResult(h, fail, 3, 2000 + i * 1000)
      h = applied.health
      seen.push([h.status, applied.transition && eventOf(applied.transition)])
    }
    // No verdict from the new monitor while its failures are tolerated; the fourth is an outage of a healthy route.
    assert.deepStrictEqual(seen, [
      ["starting", undefined],
      ["starting", undefined],
      ["starting", undefined],
      ["unhealthy", "down"]
    ])
    // A pass within the grace confirms the route healthy, as healthy as it was before the edit (no event, same uptime).
    const tolerated = applyResult(restartedHealth(healthy, true, 2000), fail, 3, 3000)
    assert.isUndefined(tolerated.transition)
    const confirmed = applyResult(tolerated.health, pass, 3, 4000)
    assert.deepStrictEqual(
      [
        confirmed.health.status,
        confirmed.transition && eventOf(confirmed.transition),
        toInfo(confirmed.health, 4000).uptime_s
      ],
      ["healthy", undefined, 3]
    )
    // A route down before the edit, or never checked, has no grace to keep.
    const down = applyResult(initialHealth(true, 0), fail, 3, 1000).health
    assert.strictEqual(applyResult(restartedHealth(down, true, 2000), fail, 3, 3000).health.status, "unhealthy")
    const fresh = applyResult(restartedHealth(initialHealth(true, 0), true, 2000), fail, 3, 3000)
    assert.strictEqual(fresh.transition && eventOf(fresh.transition), "down")
  })

  it("a down route recovers on the first passing check", () => {
    assert.deepStrictEqual(statuses([fail, fail, pass], 3), ["unhealthy", "unhealthy", "healthy"])
  })

  it("transitions carry events: down entering unhealthy/error, up leaving it, none for the first healthy", () => {
    const starting = initialHealth(true, 0)
    const first = applyResult(starting, pass, 0, 1000)
    assert.strictEqual(first.transition && eventOf(first.transition), undefined)
    const down = applyResult(first.health, fail, 0, 2000)
    assert.strictEqual(down.transition && eventOf(down.transition), "down")
    const still = applyResult(down.health, fail, 0, 3000)
    assert.isUndefined(still.transition)
    const toError = applyResult(still.health, broken, 0, 4000)
    assert.strictEqual(toError.transition && eventOf(toError.transition), undefined)
    const up = applyResult(toError.health, pass, 0, 5000)
    assert.strictEqual(up.transition && eventOf(up.transition), "up")
    assert.strictEqual(eventOf({ previous: "starting", next: "unhealthy", result: fail }), "down")
  })

  it("a restarted monitor is starting on the map, but its events continue from the status last reported", () => {
    // [map status, event, its `previous`] after one result.
    const after = (h: RouteHealth, r: CheckResult) => {
      const { health, transition } = applyResult(h, r, 0, 9000)
      return [health.status, transition && eventOf(transition), transition?.previous]
    }
    const down = applyResult(initialHealth(true, 0), fail, 0, 1000).health
    const healthy = applyResult(initialHealth(true, 0), pass, 0, 1000).health
    const restartedDown = restartedHealth(down, true, 2000)
    assert.deepStrictEqual(toInfo(restartedDown, 2000), toInfo(initialHealth(true, 2000), 2000))
    assert.deepStrictEqual(after(restartedDown, pass), ["healthy", "up", "unhealthy"])
    // Still down: the map changes (starting → unhealthy), the outage is the same.
    assert.deepStrictEqual(after(restartedDown, fail), ["unhealthy", undefined, "unhealthy"])
    assert.deepStrictEqual(after(restartedHealth(healthy, true, 2000), fail), ["unhealthy", "down", "healthy"])
    assert.deepStrictEqual(after(restartedHealth(healthy, true, 2000), pass), ["healthy", undefined, "healthy"])
    // Restarted again before its first check, or through a disabled check (`unknown`): the same outage still.
    const twice = restartedHealth(restartedDown, true, 3000)
    assert.deepStrictEqual(after(twice, pass), ["healthy", "up", "unhealthy"])
    const disabled = restartedHealth(down, false, 3000)
    assert.strictEqual(disabled.status, "unknown")
    assert.deepStrictEqual(after(restartedHealth(disabled, true, 4000), pass), ["healthy", "up", "unhealthy"])
    // A container's HEALTHCHECK in its start period is no verdict either: its end decides.
    const warming = applyResult(down, warmingUp, 0, 2000)
    assert.deepStrictEqual(
      [warming.health.status, warming.transition && eventOf(warming.transition)],
      ["starting", undefined]
    )
    assert.deepStrictEqual(after(warming.health, pass), ["healthy", "up", "unhealthy"])
    assert.deepStrictEqual(after(warming.health, fail), ["unhealthy", undefined, "unhealthy"])
    // A route never checked keeps the events of a new one.
    const neverChecked = restartedHealth(initialHealth(true, 0), true, 2000)
    assert.deepStrictEqual(after(neverChecked, fail), ["unhealthy", "down", "starting"])
    assert.deepStrictEqual(after(restartedHealth(initialHealth(false, 0), true, 2000), fail), [
      "unhealthy",
      "down",
      "starting"
    ])
  })

  it("an edit that restarts the monitor keeps uptime when the new monitor confirms the status", () => {
    const uptimeAt = (h: RouteHealth, r: CheckResult, now: number) =>
      toInfo(applyResult(h, r, 0, now).health, now).uptime_s
    // Healthy since 1 s; edited at 100 s (while up), edited again at 150 s before the first check, checked at 200 s.
    const healthy = applyResult(initialHealth(true, 0), pass, 0, 1_000).health
    const edited = restartedHealth(healthy, true, 100_000)
    assert.strictEqual(toInfo(edited, 100_000).uptime_s, 0, "starting on the map, as a new monitor is")
    assert.strictEqual(uptimeAt(edited, pass, 200_000), 199)
    assert.strictEqual(uptimeAt(restartedHealth(edited, true, 150_000), pass, 200_000), 199)
    assert.strictEqual(
      uptimeAt(restartedHealth(restartedHealth(healthy, false, 50_000), true, 60_000), pass, 200_000),
      199
    )
    // Another verdict after the edit is a change: uptime starts at it.
    assert.strictEqual(uptimeAt(edited, fail, 200_000), 0)
    // Down since 1 s and still down after the edit: the same outage, as long.
    const down = applyResult(initialHealth(true, 0), fail, 0, 1_000).health
    assert.strictEqual(uptimeAt(restartedHealth(down, true, 100_000), fail, 200_000), 199)
    // A container's start period (a restart, not an edit) is no reason to keep it.
    const warming = applyResult(healthy, warmingUp, 0, 100_000).health
    assert.strictEqual(uptimeAt(warming, pass, 200_000), 0)
    // Kept once: the status after the confirmed one starts afresh, and so does the next edit's.
    const confirmed = applyResult(edited, pass, 0, 200_000).health
    assert.strictEqual(uptimeAt(applyResult(confirmed, fail, 0, 300_000).health, pass, 400_000), 0)
  })

  it("uptime counts from the last status change; latency and last_check from the last check", () => {
    let h = initialHealth(true, 0)
    h = applyResult(h, pass, 0, 1_000).health
    h = applyResult(h, pass, 0, 6_000).health
    const info = toInfo(h, 12_500)
    assert.deepStrictEqual(info, {
      status: "healthy",
      latency_ms: 3,
      uptime_s: 11,
      last_check: "1970-01-01T00:00:06.000Z"
    })
    assert.deepStrictEqual(toInfo(initialHealth(false, 0), 2_000), {
      status: "unknown",
      latency_ms: 0,
      uptime_s: 2,
      last_check: null
    })
  })
})
