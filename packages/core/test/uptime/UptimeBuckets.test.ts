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
import { makeUptimeRecorder } from "../../src/uptime/UptimeRecorder.js"
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

describe("uptime recorder", () => {
  const info = { status: "healthy", latency_ms: 2, uptime_s: 0, last_check: null } as const

  it("counts every route in every period, never the server's own entry; a drain empties it", () => {
    const recorder = makeUptimeRecorder()
    recorder.record({ "@gatehouse": { ...info, status: "error" }, app: info }, 1_000)
    recorder.record({ app: info }, 4_000)
    const drained = recorder.drain()
    assert.deepStrictEqual(
      drained.map((b) => [b.period, b.alias, b.start, b.healthy]),
      [
        ["5m", "app", 0, 1],
        ["5m", "app", 3_000, 1],
        ["15m", "app", 0, 2],
        ["1h", "app", 0, 2],
        ["1d", "app", 0, 2],
        ["1mo", "app", 0, 2]
      ]
    )
    assert.deepStrictEqual(recorder.drain(), [])
    // Put back after a failed write and counted again in the same bucket: one delta per bucket, summed.
    recorder.restore(drained, 5_000)
    recorder.record({ app: info }, 5_000)
    const again = recorder.drain()
    assert.deepStrictEqual(
      again.filter((b) => b.period === "5m").map((b) => [b.start, b.healthy]),
      [
        [0, 1],
        [3_000, 2]
      ]
    )
    assert.strictEqual(again.find((b) => b.period === "1mo")!.healthy, 3)
  })

  it("keeps nothing put back that the store would no longer keep: a store down for long grows no memory", () => {
    const recorder = makeUptimeRecorder()
    recorder.record({ app: info }, 1_000)
    const drained = recorder.drain()
    // Put back an hour later: the 5m and 15m buckets of then are past their periods' retention, the others are not.
    recorder.restore(drained, 3_600_000)
    assert.deepStrictEqual(
      recorder.drain().map((b) => b.period),
      ["1h", "1d", "1mo"]
    )
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
