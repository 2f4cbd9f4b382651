import { assert, describe, it } from "@effect/vitest"
import { subcommandOf } from "../src/Subcommand.js"

// What CompileCache.ts reads before the command line's parser is loaded: the subcommand is the first argument that
// is neither a flag nor the value of a global flag.

describe("subcommandOf", () => {
  it("is the first argument when it is not a flag", () => {
    assert.strictEqual(subcommandOf(["serve", "--http", "127.0.0.1:0"]), "serve")
    assert.strictEqual(subcommandOf(["validate", "serve"]), "validate")
  })

  it("skips global flags, and the value of those that take one", () => {
    assert.strictEqual(subcommandOf(["--log-level", "debug", "serve"]), "serve")
    assert.strictEqual(subcommandOf(["--log-level=debug", "serve"]), "serve")
    assert.strictEqual(subcommandOf(["--completions", "bash"]), undefined)
    assert.strictEqual(subcommandOf(["-h", "auth", "list"]), "auth")
  })

  it("is undefined without one", () => {
    assert.strictEqual(subcommandOf([]), undefined)
    assert.strictEqual(subcommandOf(["--version"]), undefined)
  })
})
