import * as fs from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { tempDir } from "../../core/test/store/TempDir.js"
import { adminKeyPath } from "../src/AdminKeyPath.js"
import { readApiKey } from "../src/commands/ClientFlags.js"

/** Runs `effect` with GATEHOUSE_API_KEY set to `value`, restoring it afterwards (each test file has its process). */
const withEnvKey = <A, E, R>(value: string, effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const saved = process.env.GATEHOUSE_API_KEY
      process.env.GATEHOUSE_API_KEY = value
      return saved
    }),
    () => effect,
    (saved) =>
      Effect.sync(() => {
        if (saved === undefined) delete process.env.GATEHOUSE_API_KEY
        else process.env.GATEHOUSE_API_KEY = saved
      })
  )

describe("readApiKey", () => {
  it.live("trims GATEHOUSE_API_KEY as it trims the key file (a secret set with its newline)", () =>
    Effect.gen(function* () {
      const dataDir = yield* tempDir
      // Read when run: the key is looked up as the command starts.
      const read = Effect.suspend(() => readApiKey(Option.none(), dataDir))
      fs.writeFileSync(adminKeyPath(dataDir), "gh_file_key\n")
      assert.strictEqual(yield* withEnvKey("gh_env_key\n", read), "gh_env_key")
      assert.strictEqual(yield* withEnvKey("  gh_env_key \r\n", read), "gh_env_key")
      // Only whitespace is no key: the data directory's is read, trimmed as well.
      assert.strictEqual(yield* withEnvKey("\n", read), "gh_file_key")
    }).pipe(Effect.scoped)
  )
})
