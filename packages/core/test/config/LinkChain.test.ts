import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { tempDir } from "../../../../test/support/TempDir.js"
import { linkChain } from "../../src/config/LinkChain.js"

describe("linkChain", () => {
  it.effect("follows every link on a path, as the kernel does, and names each one", () =>
    Effect.gen(function* () {
      // The temp dir itself may be reached through a link (macOS /tmp): compared from its real path.
      const dir = fs.realpathSync(yield* tempDir("gatehouse-links-"))
      const etc = path.join(dir, "etc")
      fs.mkdirSync(path.join(etc, "v1"), { recursive: true })
      fs.writeFileSync(path.join(etc, "v1", "gatehouse.yml"), "")
      fs.symlinkSync("v1", path.join(etc, "current"))
      fs.symlinkSync(path.join("current", "gatehouse.yml"), path.join(etc, "gatehouse.yml"))
      fs.symlinkSync(etc, path.join(dir, "conf"))

      assert.deepStrictEqual(yield* linkChain(path.join(dir, "conf", "gatehouse.yml")), {
        file: path.join(etc, "v1", "gatehouse.yml"),
        links: [path.join(dir, "conf"), path.join(etc, "gatehouse.yml"), path.join(etc, "current")]
      })
      // `..` after a link goes up from where the link leads, not from where it is written.
      fs.mkdirSync(path.join(dir, "other"))
      fs.symlinkSync(path.join(etc, "v1"), path.join(dir, "other", "up"))
      assert.deepStrictEqual(yield* linkChain(`${dir}/other/up/../current/gatehouse.yml`), {
        file: path.join(etc, "v1", "gatehouse.yml"),
        links: [path.join(dir, "other", "up"), path.join(etc, "current")]
      })
      // A path without links is itself; one that is not there is followed as far as it exists.
      assert.deepStrictEqual(yield* linkChain(path.join(etc, "v1", "gatehouse.yml")), {
        file: path.join(etc, "v1", "gatehouse.yml"),
        links: []
      })
      assert.deepStrictEqual(yield* linkChain(path.join(etc, "current", "gone", "x.yml")), {
        file: path.join(etc, "v1", "gone", "x.yml"),
        links: [path.join(etc, "current")]
      })
      // A loop is followed no further than the kernel would.
      fs.symlinkSync("loop", path.join(dir, "loop"))
      const loop = yield* linkChain(path.join(dir, "loop", "x"))
      assert.strictEqual(loop.links.length, 40)
    }).pipe(Effect.scoped)
  )
})
