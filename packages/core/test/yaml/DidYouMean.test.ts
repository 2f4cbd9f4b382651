import { assert, describe, it } from "@effect/vitest"
import { closestMatch, didYouMean, editDistance } from "../../src/yaml/DidYouMean.js"

describe("editDistance", () => {
  it("counts insertions, deletions and substitutions", () => {
    assert.strictEqual(editDistance("", "abc"), 3)
    assert.strictEqual(editDistance("kitten", "sitting"), 3)
    assert.strictEqual(editDistance("port", "port"), 0)
    assert.strictEqual(editDistance("host", "hots"), 1)
  })

  it("counts a transposition of neighbours as one edit", () => {
    assert.strictEqual(editDistance("prot", "port"), 1)
    assert.strictEqual(editDistance("healtcheck", "healthcheck"), 1)
  })
})

describe("closestMatch / didYouMean", () => {
  const keys = ["alias", "scheme", "host", "port", "bind", "healthcheck", "load_balance", "use_get"]

  it("suggests the nearest known key for a typo", () => {
    assert.strictEqual(closestMatch("prot", keys), "port")
    assert.strictEqual(closestMatch("sheme", keys), "scheme")
    assert.strictEqual(closestMatch("helthchek", keys), "healthcheck")
  })

  it("ignores case and `-` versus `_`", () => {
    assert.strictEqual(closestMatch("Use-Get", keys), "use_get")
    assert.strictEqual(closestMatch("LOAD-BALANCE", keys), "load_balance")
  })

  it("suggests nothing when no key is close", () => {
    assert.isUndefined(closestMatch("completely_different", keys))
    assert.isUndefined(closestMatch("xyz", keys))
    assert.strictEqual(didYouMean("xyz", keys), "")
  })

  it("does not guess for words under three characters, except for case", () => {
    assert.isUndefined(closestMatch("d", ["a", "b"]))
    assert.strictEqual(closestMatch("A", ["a", "b"]), "a")
  })

  it("formats the hint", () => {
    assert.strictEqual(didYouMean("prot", keys), " (did you mean `port`?)")
  })
})
