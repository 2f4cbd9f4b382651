import { assert, describe, it } from "@effect/vitest"
import { allowedMethods, emptyPathParameter } from "../src/middleware/EndpointPaths.js"

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

describe("the methods a path is served with (405 and Allow)", () => {
  it("lists every endpoint's method for the path, HEAD with GET; none for an unknown path", () => {
    assert.deepStrictEqual(allowedMethods("/api/v1/health"), ["GET", "HEAD"])
    assert.deepStrictEqual([...allowedMethods("/api/v1/file/content")].sort(), ["GET", "HEAD", "PUT"])
    assert.deepStrictEqual(allowedMethods("/api/v1/route/web"), ["GET", "HEAD"])
    assert.deepStrictEqual(allowedMethods("/api/v1/nope"), [])
    assert.deepStrictEqual(allowedMethods("/api/v1/route/"), [], "an empty parameter is the 400's")
  })
})
