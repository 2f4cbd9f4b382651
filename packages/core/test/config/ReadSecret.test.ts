import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { readSecret, readTextFile, SecretUnreadable } from "../../src/config/index.js"
import { tempDir } from "../store/TempDir.js"

const fileSource = (file: string) => ({ _tag: "File" as const, path: file, key: "hypervisor.clusters.0.secret_file" })

describe("readSecret", () => {
  it.effect("returns an inline secret as it is", () =>
    Effect.gen(function* () {
      const inline = Redacted.make("inline-secret")
      assert.strictEqual(yield* readSecret(inline), inline)
    })
  )

  it.effect("reads a secret file without its trailing newline, as Redacted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const file = path.join(dir, "pve.secret")
        fs.writeFileSync(file, "0f0e0d0c-1111-4222-8333-444455556666\r\n\n")
        const secret = yield* readSecret(fileSource(file))
        assert.strictEqual(Redacted.value(secret), "0f0e0d0c-1111-4222-8333-444455556666")
        assert.strictEqual(String(secret), "<redacted>")
      })
    )
  )

  it.effect("fails with the key, the file and why: missing, a directory, or empty", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const empty = path.join(dir, "empty")
        fs.writeFileSync(empty, "\n")
        const missing = path.join(dir, "missing")
        const cases = [
          [missing, "no such file"],
          [dir, "is a directory, not a file"],
          [empty, "the file is empty"]
        ] as const
        for (const [file, reason] of cases) {
          const error = yield* Effect.flip(readSecret(fileSource(file)))
          assert.instanceOf(error, SecretUnreadable)
          assert.deepInclude(error, { key: "hypervisor.clusters.0.secret_file", path: file, reason })
          assert.strictEqual(
            error.message,
            `cannot read the secret for hypervisor.clusters.0.secret_file from ${file}: ${reason}`
          )
        }
      })
    )
  )

  it.effect("readTextFile names the system error code too", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const error = yield* Effect.flip(readTextFile(path.join(dir, "nope.yml")))
        assert.deepInclude(error, { path: path.join(dir, "nope.yml"), code: "ENOENT", reason: "no such file" })
        assert.strictEqual(error.message, `${path.join(dir, "nope.yml")}: no such file`)
      })
    )
  )
})
