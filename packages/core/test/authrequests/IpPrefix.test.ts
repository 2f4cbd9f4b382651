import { assert, describe, it } from "@effect/vitest"
import {
  firstFreeAddress,
  formatAddress,
  parseAddress,
  parsePrefix,
  prefixContains
} from "../../src/authrequests/IpPrefix.js"

describe("IpPrefix", () => {
  it("parses prefixes and clears host bits", () => {
    const v4 = parsePrefix("100.64.7.9/10")!
    assert.strictEqual(formatAddress(v4.network, 4), "100.64.0.0")
    const v6 = parsePrefix("fd7a:115c:a1e0:ab12::5/48")!
    assert.strictEqual(formatAddress(v6.network, 6), "fd7a:115c:a1e0::")
    assert.isUndefined(parsePrefix("100.64.0.0/33"))
    assert.isUndefined(parsePrefix("not-an-ip/8"))
    assert.isUndefined(parsePrefix("100.64.0.0"))
  })

  it("formats IPv6 as RFC 5952 (longest zero run compressed, lower case)", () => {
    const cases = ["::", "::1", "fd7a:115c:a1e0::1", "2001:db8:0:1:1:1:1:1", "2001:db8::1:0:0:1", "1::"]
    for (const text of cases) assert.strictEqual(formatAddress(parseAddress(text, 6)!, 6), text)
    assert.strictEqual(formatAddress(parseAddress("2001:DB8:0:0:0:0:0:1", 6)!, 6), "2001:db8::1")
    assert.strictEqual(formatAddress(parseAddress("::ffff:1.2.3.4", 6)!, 6), "::ffff:102:304")
  })

  it("hands out the lowest free address, never the network or broadcast address", () => {
    const v4 = parsePrefix("10.0.0.0/30")!
    assert.strictEqual(firstFreeAddress(v4, []), "10.0.0.1")
    assert.strictEqual(firstFreeAddress(v4, ["10.0.0.1"]), "10.0.0.2")
    // .3 is the broadcast address of a /30: the pool is exhausted.
    assert.isUndefined(firstFreeAddress(v4, ["10.0.0.1", "10.0.0.2"]))
    // Addresses outside the prefix or of the other family do not count.
    assert.strictEqual(firstFreeAddress(v4, ["10.0.1.1", "::1"]), "10.0.0.1")
    const v6 = parsePrefix("fd7a:115c:a1e0::/48")!
    assert.strictEqual(firstFreeAddress(v6, ["fd7a:115c:a1e0::1", "fd7a:115c:a1e0::3"]), "fd7a:115c:a1e0::2")
  })

  it("tells whether an address lies in a prefix, IPv4-mapped IPv6 compared as IPv4", () => {
    const v4 = parsePrefix("10.1.0.0/16")!
    assert.isTrue(prefixContains(v4, "10.1.255.7"))
    assert.isFalse(prefixContains(v4, "10.2.0.1"))
    assert.isTrue(prefixContains(v4, "::ffff:10.1.0.9"))
    assert.isFalse(prefixContains(v4, "fd00::1"))
    assert.isFalse(prefixContains(v4, "not an address"))
    const v6 = parsePrefix("fd7a:115c:a1e0::/48")!
    assert.isTrue(prefixContains(v6, "fd7a:115c:a1e0:1::5"))
    assert.isFalse(prefixContains(v6, "fd7a:115c:a1e1::5"))
    assert.isTrue(prefixContains(parsePrefix("0.0.0.0/0")!, "192.0.2.1"))
    assert.isTrue(prefixContains(parsePrefix("127.0.0.1/32")!, "127.0.0.1"))
  })
})
