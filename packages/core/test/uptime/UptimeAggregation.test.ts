import { assert, describe, it } from "@effect/vitest"
import type { CheckResult } from "../../src/health/CheckResult.js"
import { applyResult, initialHealth, type RouteHealth, toInfo } from "../../src/health/HealthState.js"
import { aggregateRoute } from "../../src/uptime/UptimeAggregation.js"
import { makeUptimeRecorder } from "../../src/uptime/UptimeRecorder.js"

// From a route's check results to its uptime figures, through the parts the live service joins: the health state
// the monitor updates, the recorder sampling it every second, the aggregation of the recorded buckets.

describe("uptime aggregation of a route's health", () => {
  it("the timeouts a healthy route tolerates (its retries) do not inflate its average latency", () => {
    const pass: CheckResult = { status: "healthy", latency_ms: 2 }
    const timeout: CheckResult = { status: "unhealthy", latency_ms: 5000, error: "no answer within 5000 ms" }
    const recorder = makeUptimeRecorder()
    let health: RouteHealth = initialHealth(true, 0)
    // A check every 10 s, a sample every second: healthy answers for a minute, then three tolerated timeouts.
    const results = [...Array.from({ length: 6 }, () => pass), timeout, timeout, timeout]
    results.forEach((result, i) => {
      const checkedAt = (i + 1) * 10_000
      health = applyResult(health, result, 3, checkedAt).health
      for (let t = checkedAt; t < checkedAt + 10_000; t += 1000) recorder.record({ app: toInfo(health, t) }, t)
    })
    assert.strictEqual(health.status, "healthy", "the timeouts were tolerated")
    const buckets = recorder
      .drain()
      .filter((bucket) => bucket.period === "5m")
      .map((counts) => ({ start: counts.start, counts }))
    const aggregate = aggregateRoute({ alias: "app", excluded: false, currentStatus: health.status, buckets })
    assert.deepStrictEqual([aggregate.uptime, aggregate.avg_latency_ms], [1, 2])
    assert.isTrue(
      aggregate.statuses.every((point) => point.latency_ms === 2),
      JSON.stringify(aggregate.statuses.map((point) => point.latency_ms))
    )
  })
})
