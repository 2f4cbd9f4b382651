import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../../../test/support/Cli.js"
import { tempDir } from "../../core/test/store/TempDir.js"

describe("usage errors", () => {
  it.live(
    "a command line the parser refuses exits 2, apart from the command's own failure (1)",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        fs.writeFileSync(path.join(dir, "bad.yml"), "app:\n  port: 99999\n")
        const typo = yield* runCli(["validate", "bad.yml", "--confg", "x"], { cwd: dir })
        assert.strictEqual(typo.code, 2, typo.stderr)
        const missing = yield* runCli(["apikey", "create"], { cwd: dir })
        assert.strictEqual(missing.code, 2, missing.stderr)
        const invalid = yield* runCli(["validate", "bad.yml"], { cwd: dir })
        assert.strictEqual(invalid.code, 1, invalid.stderr)
      }).pipe(Effect.scoped),
    90_000
  )
})
