import { assert, describe, it } from "@effect/vitest"
import { givenNameFor } from "../../src/authrequests/AuthRequestRendering.js"

// A DNS label: letters, digits and inner hyphens, at most 63.
const dnsLabel = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/

describe("AuthRequestRendering: a node's given name", () => {
  it("is a DNS label whatever the host name, also where the cut at 56 lands on a hyphen", () => {
    const hostnames = [
      `${"a".repeat(55)}-bbb`,
      `${"a".repeat(54)}--bbb`,
      `${"a".repeat(55)}.bbb`,
      `-${"a".repeat(60)}-`,
      "Alice's Laptop",
      "---",
      ""
    ]
    for (const hostname of hostnames) {
      for (const taken of [new Set<string>(), new Set([givenNameFor(hostname, new Set())])]) {
        const name = givenNameFor(hostname, taken)
        assert.match(name, dnsLabel, JSON.stringify({ hostname, taken: [...taken] }))
        assert.isAtMost(name.length, 63)
        assert.isFalse(taken.has(name))
      }
    }
    assert.strictEqual(givenNameFor(`${"a".repeat(55)}-bbb`, new Set()), "a".repeat(55))
    assert.strictEqual(givenNameFor("Alice's Laptop", new Set()), "alice-s-laptop")
    assert.strictEqual(givenNameFor("---", new Set()), "node")
  })
})
