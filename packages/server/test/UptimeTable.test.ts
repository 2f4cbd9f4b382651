import { assert, describe, it } from "@effect/vitest"
import type { HealthStatusString, RouteUptimePage, StatusSample } from "@gatehouse-edge/core/domain"
import { formatUptimePage } from "../src/commands/Uptime.js"

// `gatehouse uptime`'s table, byte for byte: the expected text is what the command printed before it shared
// `formatTable` with the other tables (text columns left-aligned, numbers right-aligned, the last column unpadded,
// even when empty).

const sample = (status: HealthStatusString): StatusSample => ({
  status,
  latency_ms: 1,
  timestamp: "2026-01-01T00:00:00Z"
})

const page: RouteUptimePage = {
  total: 5,
  data: [
    {
      alias: "api",
      is_excluded: false,
      uptime: 1,
      downtime: 0,
      idle: 0,
      avg_latency_ms: 3.456,
      current_status: "healthy",
      statuses: (["healthy", "unhealthy", "error", "napping", "starting", "unknown"] as const).map(sample)
    },
    {
      alias: "a-much-longer-alias",
      is_excluded: true,
      uptime: 0.5,
      downtime: 0.25,
      idle: 0.25,
      avg_latency_ms: 0,
      current_status: "unknown",
      // More points than the column shows: the newest 40.
      statuses: Array.from({ length: 45 }, (_, i) => sample(i % 2 === 0 ? "healthy" : "unhealthy"))
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

describe("formatUptimePage", () => {
  it("pads each column to its widest cell, numbers to the right, the history unpadded", () => {
    assert.deepStrictEqual(formatUptimePage(page, "1d"), [
      "ALIAS                STATUS                   UP     DOWN    IDLE  AVG LATENCY  HISTORY (oldest → newest)",
      "api                  healthy             100.00%    0.00%   0.00%      3.46 ms  #xEzs.",
      "a-much-longer-alias  unknown (excluded)   50.00%   25.00%  25.00%            -  x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#x#",
      "w                    unhealthy             0.00%  100.00%   0.00%   1234.50 ms  ",
      "3 of 5 routes, 1d; history: # up  x down  E error  z idle  s starting  . unknown"
    ])
  })

  it("says when there are no routes, and counts one route in the singular", () => {
    assert.deepStrictEqual(formatUptimePage({ total: 0, data: [] }, "1h"), ["no routes (1h)"])
    assert.deepStrictEqual(formatUptimePage({ total: 1, data: [page.data[0]!] }, "5m"), [
      "ALIAS  STATUS        UP   DOWN   IDLE  AVG LATENCY  HISTORY (oldest → newest)",
      "api    healthy  100.00%  0.00%  0.00%      3.46 ms  #xEzs.",
      "1 route, 5m; history: # up  x down  E error  z idle  s starting  . unknown"
    ])
  })
})
