import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { e2e } from "../../../../test/support/e2e.js"
import { writeFileAtomic } from "../../src/files/AtomicWrite.js"
import { tempDir } from "../store/TempDir.js"

// Giving files away and dropping privileges need root (CI runs the suite as root); elsewhere these are skipped, but
// an E2E run, which must exercise everything, fails.
const notRoot = process.getuid?.() !== 0
if (notRoot && e2e) throw new Error("GATEHOUSE_E2E=1 but not root: the file ownership tests need root")

const ownerOf = (file: string) => {
  const stats = fs.statSync(file)
  return { uid: stats.uid, gid: stats.gid, mode: stats.mode & 0o7777 }
}

describe("writeFileAtomic and ownership", () => {
  it.live.skipIf(notRoot)("the replacement keeps the owner, group and mode of the file it replaces", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const target = path.join(yield* tempDir, "gatehouse.yml")
        fs.writeFileSync(target, "old\n")
        fs.chownSync(target, 1234, 5678)
        fs.chmodSync(target, 0o640)
        yield* writeFileAtomic(target, "new\n")
        assert.strictEqual(fs.readFileSync(target, "utf8"), "new\n")
        assert.deepStrictEqual(ownerOf(target), { uid: 1234, gid: 5678, mode: 0o640 })
      })
    )
  )

  it.skipIf(notRoot)("a process that is not root keeps the group it is a member of, and becomes the owner", () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "gatehouse-owner-"))
    try {
      fs.chownSync(dir, 4321, 4321)
      const target = path.join(dir, "routes.yml")
      fs.writeFileSync(target, "old\n")
      fs.chownSync(target, 0, 5678)
      fs.chmodSync(target, 0o660)
      // The child drops to uid 4321, a member of group 5678, before it loads the module.
      const atomicWrite = import.meta.resolve("../../src/files/AtomicWrite.ts")
      const script = [
        "process.setgroups([5678]); process.setgid(4321); process.setuid(4321)",
        'const { Effect } = await import("effect")',
        `const { writeFileAtomic } = await import(${JSON.stringify(atomicWrite)})`,
        `await Effect.runPromise(writeFileAtomic(${JSON.stringify(target)}, "new\\n"))`
      ].join("\n")
      const child = spawnSync(
        process.execPath,
        ["--import", import.meta.resolve("tsx"), "--input-type=module", "-e", script],
        { encoding: "utf8", timeout: 60_000, cwd: process.cwd() }
      )
      assert.strictEqual(child.status, 0, child.stderr)
      assert.strictEqual(fs.readFileSync(target, "utf8"), "new\n")
      assert.deepStrictEqual(ownerOf(target), { uid: 4321, gid: 5678, mode: 0o660 })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.live("a new file gets 0666 less the process's umask, as any program's new file", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        const before = process.umask(0o027)
        yield* Effect.ensuring(
          Effect.gen(function* () {
            yield* writeFileAtomic(path.join(dir, "private.yml"), "x\n")
            process.umask(0o002)
            yield* writeFileAtomic(path.join(dir, "shared.yml"), "x\n")
          }),
          Effect.sync(() => process.umask(before))
        )
        assert.strictEqual(ownerOf(path.join(dir, "private.yml")).mode, 0o640)
        assert.strictEqual(ownerOf(path.join(dir, "shared.yml")).mode, 0o664)
      })
    )
  )
})
