import { assert, describe, it } from "@effect/vitest"
import { emptyPathParameter } from "../src/middleware/EmptyPathParameter.js"

describe("an empty path parameter is bad input (400), not an unknown endpoint", () => {
  it("names the parameter left empty, for the endpoint's own method only", () => {
    assert.strictEqual(emptyPathParameter("GET", "/api/v1/docker/stats/"), "id")
    assert.strictEqual(emptyPathParameter("GET", "/api/v1/route/"), "alias")
    assert.strictEqual(emptyPathParameter("GET", "/api/v1/hypervisor/stats/pve1/"), "vmid")
    assert.strictEqual(emptyPathParameter("POST", "/api/v1/docker/containers//start"), "id")
    assert.strictEqual(emptyPathParameter("POST", "/api/v1/hypervisor/lxc/pve1//stop"), "vmid")
  })

  it("leaves every other path to the 404", () => {
    for (const [method, path] of [
      ["POST", "/api/v1/docker/stats/"],
      ["GET", "/api/v1/docker/stats/web"],
      ["GET", "/api/v1/nothing/"],
      ["GET", "/api/v1/docker/stats/web/extra"],
      ["GET", "/api/v1/route/list/"]
    ] as const) {
      assert.isUndefined(emptyPathParameter(method, path), `${method} ${path}`)
    }
  })
})
