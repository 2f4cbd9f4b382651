import { assert, describe, it } from "@effect/vitest"
import { bucketWidthMs, uptimePeriods } from "@gatehouse-edge/core"
import type {
  HealthStatusString,
  RouteUptimeAggregate,
  RouteUptimePage,
  StatusSample,
  UptimePeriod
} from "@gatehouse-edge/core/domain"
import { formatUptimePage } from "../src/commands/Uptime.js"
import { pointWidthMs } from "../src/commands/UptimeHistory.js"

// `gatehouse uptime`'s table, byte for byte: the expected text is what the command printed before it shared
// `formatTable` with the other tables (text columns left-aligned, numbers right-aligned, the last column unpadded,
// even when empty), with the history drawn on the time of its points.

// The start of the newest bucket of every period (a multiple of each width).
const newest = Date.parse("2026-01-01T00:00:00Z")

/** Points of `period`, one per bucket, the last at the newest. */
const points = (period: UptimePeriod, statuses: ReadonlyArray<HealthStatusString>): ReadonlyArray<StatusSample> =>
  statuses.map((status, i) => ({
    status,
    latency_ms: 1,
    timestamp: new Date(newest - (statuses.length - 1 - i) * bucketWidthMs(period)).toISOString()
  }))

const api = (period: UptimePeriod): RouteUptimeAggregate => ({
  alias: "api",
  is_excluded: false,
  uptime: 1,
  downtime: 0,
  idle: 0,
  avg_latency_ms: 3.456,
  current_status: "healthy",
  statuses: points(period, ["healthy", "unhealthy", "error", "napping", "starting", "unknown"])
})

const page: RouteUptimePage = {
  total: 5,
  data: [
    api("1d"),
    {
      alias: "a-much-longer-alias",
      is_excluded: true,
      uptime: 0.5,
      downtime: 0.25,
      idle: 0.25,
      avg_latency_ms: 0,
      current_status: "unknown",
      // More points than the column shows: the newest 40.
      statuses: points(
        "1d",
        Array.from({ length: 45 }, (_, i) => (i % 2 === 0 ? "healthy" : "unhealthy"))
      )
    },
    {
      alias: "w",
      is_excluded: false,
      uptime: 0,
      downtime: 1,
      idle: 0,
      avg_latency_ms: 1234.5,
      current_status: "unhealthy",
      statuses: []
    }
  ]
}

const unknown = (n: number) => ".".repeat(n)

describe("formatUptimePage", () => {
  it("pads each column to its widest cell, numbers to the right, the history unpadded", () => {
    assert.deepStrictEqual(formatUptimePage(page, "1d"), [
      "ALIAS                STATUS                   UP     DOWN    IDLE  AVG LATENCY  HISTORY (oldest → newest)",
      `api                  healthy             100.00%    0.00%   0.00%      3.46 ms  ${unknown(34)}#xEzs.`,
      "a-much-longer-alias  unknown (excluded)   50.00%   25.00%  25.00%            -  x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#",
      `w                    unhealthy             0.00%  100.00%   0.00%   1234.50 ms  ${unknown(40)}`,
      "3 of 5 routes, 1d; history: # up  x down  E error  z idle  s starting  . unknown"
    ])
  })

  it("says when there are no routes, and counts one route in the singular", () => {
    assert.deepStrictEqual(formatUptimePage({ total: 0, data: [] }, "1h"), ["no routes (1h)"])
    assert.deepStrictEqual(formatUptimePage({ total: 1, data: [api("5m")] }, "5m"), [
      "ALIAS  STATUS        UP   DOWN   IDLE  AVG LATENCY  HISTORY (oldest → newest)",
      `api    healthy  100.00%  0.00%  0.00%      3.46 ms  ${unknown(34)}#xEzs.`,
      "1 route, 5m; history: # up  x down  E error  z idle  s starting  . unknown"
    ])
  })

  it("draws each point in the slot of its time: buckets without samples (the server was down) show as unknown", () => {
    const at = (timestamp: string, status: HealthStatusString): StatusSample => ({ status, latency_ms: 1, timestamp })
    const row = (alias: string, statuses: ReadonlyArray<StatusSample>): RouteUptimeAggregate => ({
      ...api("5m"),
      alias,
      statuses
    })
    // Two points 30 s apart on 5m (3 s buckets): nine buckets between them had no sample.
    const gap = row("gap", [at("2026-01-01T00:00:00Z", "healthy"), at("2026-01-01T00:00:30Z", "unhealthy")])
    // A route whose points end earlier than the page's newest: its last slots are unknown, every column one time.
    const early = row("early", [at("2026-01-01T00:00:00Z", "healthy"), at("2026-01-01T00:00:03Z", "healthy")])
    const history = (lines: ReadonlyArray<string>, alias: string) =>
      lines
        .find((line) => line.startsWith(`${alias} `))!
        .split("  ")
        .at(-1)
    const lines = formatUptimePage({ total: 2, data: [gap, early] }, "5m")
    assert.strictEqual(history(lines, "gap"), `${unknown(29)}#${unknown(9)}x`)
    assert.strictEqual(history(lines, "early"), `${unknown(29)}##${unknown(9)}`)
  })

  it("a point is as wide as the server's buckets of its period", () => {
    assert.deepStrictEqual(
      uptimePeriods.map((period) => pointWidthMs[period]),
      uptimePeriods.map((period) => bucketWidthMs(period))
    )
  })
})
