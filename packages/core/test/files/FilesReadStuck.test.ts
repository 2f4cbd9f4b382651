import { assert, describe, it } from "@effect/vitest"
import { FileOperationTimedOut } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { stuckDisk } from "../../../../test/support/StuckDisk.js"
import { filesLayout, outcomeOf } from "./FilesFixtures.js"
import { startFiles } from "./StartFiles.js"

describe("a file read on a stuck disk", () => {
  it.effect("fails within its bound while it looks for the routes directory, and reads once the disk answers", () =>
    Effect.gen(function* () {
      const { dir, routesDir, configFile } = yield* filesLayout({ "a.yml": "one:\n  port: 1\n" })
      const disk = yield* stuckDisk(dir)
      const files = yield* startFiles(configFile, routesDir)
      disk.stick()
      // Its first step, the stat of the routes directory, waits on the disk.
      const read = yield* Effect.forkChild(Effect.flip(files.read("routes", "a.yml")), { startImmediately: true })
      yield* TestClock.adjust("10 seconds")
      const failure = yield* outcomeOf(read, "the read")
      assert.instanceOf(failure, FileOperationTimedOut)
      assert.strictEqual(failure.message, 'reading of routes file "a.yml" did not finish within 10000 ms')
      yield* disk.release
      assert.strictEqual((yield* files.read("routes", "a.yml")).content, "one:\n  port: 1\n")
    }).pipe(Effect.scoped)
  )
})

describe("a file listing on a stuck disk", () => {
  it.effect("fails within its bound while it reads the routes directory, and lists once the disk answers", () =>
    Effect.gen(function* () {
      const { dir, routesDir, configFile } = yield* filesLayout({ "a.yml": "one:\n  port: 1\n" })
      const disk = yield* stuckDisk(dir)
      const files = yield* startFiles(configFile, routesDir)
      disk.stick()
      // Its first step, the read of the routes directory, waits on the disk.
      const listing = yield* Effect.forkChild(Effect.flip(files.list), { startImmediately: true })
      yield* TestClock.adjust("10 seconds")
      const failure = yield* outcomeOf(listing, "the listing")
      assert.instanceOf(failure, FileOperationTimedOut)
      assert.strictEqual(failure.message, "listing of the routes directory did not finish within 10000 ms")
      yield* disk.release
      assert.deepStrictEqual(yield* files.list, { config: ["gatehouse.yml"], routes: ["a.yml"] })
    }).pipe(Effect.scoped)
  )
})
