import { assert, describe, it } from "@effect/vitest"
import { InvalidArgument } from "@gatehouse-edge/contract/domain"
import { notAContainer } from "../../src/hypervisor/GuestKind.js"

describe("notAContainer", () => {
  it("lets a container through", () => {
    assert.isUndefined(notAContainer({ vmid: 101, type: "lxc" }))
  })

  it("refuses a virtual machine with a 400 naming the vmid (journal, tail and LXC actions check it first)", () => {
    const refused = notAContainer({ vmid: 200, type: "qemu" })
    assert.instanceOf(refused, InvalidArgument)
    assert.strictEqual(refused?.message, "guest 200 is a virtual machine, not an LXC container")
    assert.deepStrictEqual(refused?.issues, [{ path: ["vmid"], message: "not an LXC container" }])
  })
})
