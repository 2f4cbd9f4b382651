import { assert, describe, it } from "@effect/vitest"
import type { HealthStatusString } from "@gatehouse-edge/contract/domain"
import type { CheckResult } from "../../src/health/CheckResult.js"
import { applyResult, eventOf, initialHealth, type RouteHealth, toInfo } from "../../src/health/HealthState.js"

const pass: CheckResult = { status: "healthy", latency_ms: 3 }
const fail: CheckResult = { status: "unhealthy", latency_ms: 7, error: "HTTP 503" }
const broken: CheckResult = { status: "error", latency_ms: 0, error: "no root" }

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
