import { assert, describe, it } from "@effect/vitest"
import { randomBytesPooled } from "../../src/util/RandomPool.js"

describe("randomBytesPooled", () => {
  it("hands out each byte once, across refills, as buffers the caller owns", () => {
    // 3 × 4096 bytes in 18-byte draws crosses the refill boundary twice; 144-bit draws never repeat.
    const draws = Array.from({ length: Math.ceil((3 * 4096) / 18) }, () => randomBytesPooled(18))
    assert.isTrue(draws.every((d) => d.length === 18))
    assert.strictEqual(new Set(draws.map((d) => d.toString("hex"))).size, draws.length)
    const first = Buffer.from(draws[0]!)
    randomBytesPooled(4000)
    assert.deepStrictEqual(draws[0], first, "a later draw does not change an earlier one")
    // Not all zero: the pool was filled (the chance of 18 zero bytes is 2^-144).
    assert.isTrue(draws.every((d) => d.some((b) => b !== 0)))
    assert.throws(() => randomBytesPooled(4097), RangeError)
  })
})
