import { assert, describe, it } from "@effect/vitest"
import { safeReturnPath } from "../../src/domain/ReturnPath.js"

describe("safeReturnPath", () => {
  it("keeps a path on this server, with its query and fragment", () => {
    assert.strictEqual(safeReturnPath("/"), "/")
    assert.strictEqual(safeReturnPath("/api/v1/health?x=1#top"), "/api/v1/health?x=1#top")
    assert.strictEqual(safeReturnPath("/a/../b"), "/b")
  })

  it("turns everything that could leave the origin into /", () => {
    for (const evil of [
      undefined,
      "",
      "https://evil.example",
      "https://evil.example/path",
      "//evil.example",
      "//evil.example/path",
      "/\\evil.example",
      "\\\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "javascript:alert(1)",
      "evil.example",
      "http:/evil.example",
      `/${"a".repeat(3000)}`
    ]) {
      assert.strictEqual(safeReturnPath(evil), "/", JSON.stringify(evil))
    }
  })

  // The raw input starts with one slash; only after dot segments are resolved does it become `//host`.
  it("refuses paths that normalise to another host", () => {
    for (const evil of [
      "/.//evil.example/x",
      "/%2e//evil.example",
      "/%2E//evil.example",
      "/a/..//evil.example",
      "/a/%2e%2e//evil.example",
      "/..//evil.example?x=1#top"
    ]) {
      assert.strictEqual(safeReturnPath(evil), "/", JSON.stringify(evil))
    }
  })

  it("keeps a double slash that is not at the start", () => {
    assert.strictEqual(safeReturnPath("/a/b//c"), "/a/b//c")
  })
})
