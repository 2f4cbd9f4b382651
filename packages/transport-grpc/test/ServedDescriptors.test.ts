import { assert, describe, it } from "@effect/vitest"
import { requireTool } from "../../../test/support/e2e.js"
import { servedDescriptors } from "../src/ServedDescriptors.js"
import { compileServedDescriptors, fileNameOf, regenerateCommand } from "./support/ServedProtos.js"

const protoc = requireTool("protoc")

describe("the descriptors server reflection serves", () => {
  it.skipIf(protoc.skip)("are protoc's compilation of proto/ as it is", () => {
    const compiled = compileServedDescriptors()
    const served = servedDescriptors.map((base64) => Buffer.from(base64, "base64"))
    const stale = `src/ServedDescriptors.ts is stale: run ${regenerateCommand}`
    assert.deepStrictEqual(
      served.map(fileNameOf),
      compiled.map((file) => file.name),
      stale
    )
    for (const [i, file] of compiled.entries()) {
      // The well-known types are the installed protoc's (another version writes other bytes); any of them links.
      if (file.name.startsWith("google/protobuf/")) continue
      assert.isTrue(Buffer.from(file.bytes).equals(served[i]!), `${file.name}: ${stale}`)
    }
  })
})
