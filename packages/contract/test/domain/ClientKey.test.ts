import { assert, describe, it } from "@effect/vitest"
import { clientKeyOf } from "../../src/domain/ClientKey.js"

describe("clientKeyOf", () => {
  it("keeps an IPv4 address, and counts an IPv4-mapped IPv6 address as it", () => {
    assert.strictEqual(clientKeyOf("192.0.2.7"), "192.0.2.7")
    assert.strictEqual(clientKeyOf("::ffff:192.0.2.7"), "192.0.2.7")
    assert.strictEqual(clientKeyOf("::FFFF:192.0.2.7"), "192.0.2.7")
  })

  it("counts every address of one IPv6 /64 as one client, however it is written", () => {
    const spellings = [
      "2001:db8:1:2::1",
      "2001:db8:1:2:ffff:ffff:ffff:fffe",
      "2001:0DB8:0001:0002:0:0:0:9",
      "2001:db8:1:2:a:b:192.0.2.1",
      "2001:db8:1:2::1%eth0"
    ]
    for (const address of spellings) assert.strictEqual(clientKeyOf(address), "2001:db8:1:2::/64", address)
    assert.strictEqual(clientKeyOf("::1"), "0:0:0:0::/64")
    assert.strictEqual(clientKeyOf("fe80::1%eth0"), "fe80:0:0:0::/64")
  })

  it("tells neighbouring /64s apart", () => {
    assert.notStrictEqual(clientKeyOf("2001:db8:1:2::1"), clientKeyOf("2001:db8:1:3::1"))
    assert.notStrictEqual(clientKeyOf("2001:db8::1"), clientKeyOf("2001:db9::1"))
  })

  it("leaves what is not an address as it is", () => {
    for (const other of ["unknown", "1:2:3", "1::2::3", "g::1", "1:2:3:4:5:6:7:8:9"]) {
      assert.strictEqual(clientKeyOf(other), other)
    }
  })
})
