import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  addSample,
  bucketStartOf,
  bucketWidthMs,
  emptyCounts,
  retentionCutoffOf,
  uptimePeriods,
  windowStartOf,
  worstStatus
} from "../../src/uptime/UptimeBuckets.js"
import { checkUptimeQuery, matchesKeyword, selectPage } from "../../src/uptime/UptimeSelection.js"

describe("uptime buckets", () => {
  it("a period is 100 buckets: 3 s, 9 s, 36 s, 864 s, 25,920 s", () => {
    assert.deepStrictEqual(
      uptimePeriods.map((p) => bucketWidthMs(p) / 1000),
      [3, 9, 36, 864, 25_920]
    )
  })

  it("buckets are aligned to the epoch; the window is the current bucket and the 99 before it", () => {
    assert.strictEqual(bucketStartOf("5m", 2_999), 0)
    assert.strictEqual(bucketStartOf("5m", 3_000), 3_000)
    assert.strictEqual(bucketStartOf("1mo", 25_920_000 * 7 + 1), 25_920_000 * 7)
    const now = 1_000_000_123
    assert.strictEqual((bucketStartOf("1h", now) - windowStartOf("1h", now)) / bucketWidthMs("1h"), 99)
    assert.strictEqual(windowStartOf("1h", now) - retentionCutoffOf("1h", now), bucketWidthMs("1h"))
  })

  it("the worst status of a bucket; only healthy samples with a measured latency count for latency", () => {
    const counts = emptyCounts()
    assert.strictEqual(worstStatus(counts), "unknown")
    addSample(counts, "unknown", 0)
    addSample(counts, "healthy", 4)
    assert.strictEqual(worstStatus(counts), "healthy")
    addSample(counts, "napping", 0)
    assert.strictEqual(worstStatus(counts), "napping")
    addSample(counts, "starting", 0)
    assert.strictEqual(worstStatus(counts), "starting")
    addSample(counts, "unhealthy", 5000)
    assert.strictEqual(worstStatus(counts), "unhealthy")
    addSample(counts, "error", 1)
    assert.strictEqual(worstStatus(counts), "error")
    addSample(counts, "healthy", 0)
    assert.deepStrictEqual([counts.latency_sum, counts.latency_count, counts.healthy], [4, 1, 2])
  })
})

describe("uptime selection", () => {
  it("keyword: case-insensitive, a substring or the characters in order", () => {
    assert.isTrue(matchesKeyword("webmail", "mail"))
    assert.isTrue(matchesKeyword("webmail", "wml"))
    assert.isTrue(matchesKeyword("Web", "web"))
    assert.isTrue(matchesKeyword("web", ""))
    assert.isFalse(matchesKeyword("webmail", "lw"))
    assert.isFalse(matchesKeyword("web", "webb"))
  })

  it("sorts before paging; total counts every match", () => {
    const routes = ["c", "a", "b", "d"].map((alias) => ({ alias }))
    const page = selectPage(routes, { period: "1d", limit: 2, offset: 1, keyword: "" })
    assert.deepStrictEqual(page, { total: 4, page: [{ alias: "b" }, { alias: "c" }] })
  })

  it.effect("defaults: a day, 100 routes from the first; the keyword lower-cased", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* checkUptimeQuery({}), { period: "1d", limit: 100, offset: 0, keyword: "" })
      assert.deepStrictEqual(yield* checkUptimeQuery({ keyword: "WeB", limit: 1000, offset: 5, period: "5m" }), {
        period: "5m",
        limit: 1000,
        offset: 5,
        keyword: "web"
      })
      const error = yield* Effect.flip(checkUptimeQuery({ period: "2h" as "1h" }))
      assert.strictEqual(error.message, "period: expected one of 5m, 15m, 1h, 1d, 1mo")
    })
  )
})
