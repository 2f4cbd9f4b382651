import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { EngineTime, toEngineTime } from "../../src/domain/EngineTime.js"

describe("EngineTime: a container engine's since/until", () => {
  it("passes Unix seconds on and turns an RFC 3339 time into them, keeping every decimal", () => {
    assert.strictEqual(toEngineTime("1764130762"), "1764130762")
    assert.strictEqual(toEngineTime("1764130762.5"), "1764130762.5")
    assert.strictEqual(toEngineTime("2026-11-26T04:19:22Z"), String(Date.UTC(2026, 10, 26, 4, 19, 22) / 1000))
    // A log line's timestamp, nanoseconds and all: the same instant, not rounded to milliseconds.
    assert.strictEqual(toEngineTime("2026-11-26T04:19:22.123456789Z"), "1795666762.123456789")
    assert.strictEqual(toEngineTime("2026-11-26T06:19:22.5+02:00"), "1795666762.5")
  })

  it("refuses what is neither, and dates that do not exist or come before 1970", () => {
    for (const text of ["", "yesterday", "10m", "-5", "2026-11-26", "2026-11-26 04:19:22Z", "2026-02-30T00:00:00Z"])
      assert.isUndefined(toEngineTime(text), text)
    assert.isUndefined(toEngineTime("1969-12-31T23:59:59Z"))
    const decode = Schema.decodeUnknownResult(EngineTime)
    assert.strictEqual(decode("2026-11-26T04:19:22Z")._tag, "Success")
    assert.strictEqual(decode("10m")._tag, "Failure")
  })
})
