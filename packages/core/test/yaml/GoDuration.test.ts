import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import { formatGoDuration, GoDuration, parseGoDuration } from "../../src/yaml/GoDuration.js"

describe("parseGoDuration", () => {
  it("reads Go-style durations into milliseconds", () => {
    assert.strictEqual(parseGoDuration("5s"), 5_000)
    assert.strictEqual(parseGoDuration("1m30s"), 90_000)
    assert.strictEqual(parseGoDuration("500ms"), 500)
    assert.strictEqual(parseGoDuration("1.5h"), 5_400_000)
    assert.strictEqual(parseGoDuration("2h45m"), 9_900_000)
    assert.strictEqual(parseGoDuration("1.1s"), 1_100)
    assert.strictEqual(parseGoDuration("0"), 0)
  })

  it("rounds a positive duration under a millisecond up to 1 ms", () => {
    assert.strictEqual(parseGoDuration("300us"), 1)
    assert.strictEqual(parseGoDuration("1500000ns"), 2)
  })

  it("rejects anything else", () => {
    for (const text of ["", "5", "5x", "s", "-5s", "5 s", "1h-2m", "five seconds"]) {
      assert.isUndefined(parseGoDuration(text), text)
    }
  })

  it("formats milliseconds back", () => {
    assert.strictEqual(formatGoDuration(90_000), "1m30s")
    assert.strictEqual(formatGoDuration(500), "500ms")
    assert.strictEqual(formatGoDuration(3_600_000), "1h")
    assert.strictEqual(formatGoDuration(0), "0s")
  })
})

describe("GoDuration schema", () => {
  const decode = (schema: ReturnType<typeof GoDuration>, input: unknown) => Schema.decodeUnknownResult(schema)(input)

  it("takes strings and integer seconds", () => {
    assert.deepStrictEqual(decode(GoDuration(), "1m"), Result.succeed(60_000))
    assert.deepStrictEqual(decode(GoDuration(), 30), Result.succeed(30_000))
  })

  it("explains a malformed duration and a negative number", () => {
    const bad = decode(GoDuration(), "5x")
    assert.isTrue(Result.isFailure(bad) && bad.failure.message.includes("`5x` is not a duration"))
    const negative = decode(GoDuration(), -1)
    assert.isTrue(Result.isFailure(negative) && negative.failure.message.includes("must not be negative"))
  })

  it("enforces a minimum, in the user's units", () => {
    const short = decode(GoDuration({ minimum: 1_000 }), "500ms")
    assert.isTrue(Result.isFailure(short) && short.failure.message.includes("must be at least 1s, got 500ms"))
    assert.deepStrictEqual(decode(GoDuration({ minimum: 1_000 }), "1s"), Result.succeed(1_000))
  })
})
