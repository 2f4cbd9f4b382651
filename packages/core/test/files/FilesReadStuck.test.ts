import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { FileOperationTimedOut } from "@gatehouse-edge/contract/domain"
import { Effect, type Fiber } from "effect"
import { TestClock } from "effect/testing"
import { stuckDisk } from "../../../../test/support/StuckDisk.js"
import { tempDir } from "../store/TempDir.js"
import { startFiles } from "./StartFiles.js"

// What a fiber ended with, polled for on the wall clock (where the file system works) for at most 5 s: a read that
// hangs fails the test here rather than never.
const outcomeOf = <A, E>(fiber: Fiber.Fiber<A, E>, name: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1000; i++) {
      const exit = fiber.pollUnsafe()
      if (exit !== undefined) return yield* exit
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
    return yield* Effect.die(new Error(`${name} is still waiting after 5 s`))
  })

describe("a file read on a stuck disk", () => {
  it.effect("fails within its bound while it looks for the routes directory, and reads once the disk answers", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const routesDir = path.join(dir, "routes")
      fs.mkdirSync(routesDir)
      fs.writeFileSync(path.join(routesDir, "a.yml"), "one:\n  port: 1\n")
      const configFile = path.join(dir, "gatehouse.yml")
      fs.writeFileSync(configFile, "events: { history: 10 }\n")
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
      const dir = yield* tempDir
      const routesDir = path.join(dir, "routes")
      fs.mkdirSync(routesDir)
      fs.writeFileSync(path.join(routesDir, "a.yml"), "one:\n  port: 1\n")
      const configFile = path.join(dir, "gatehouse.yml")
      fs.writeFileSync(configFile, "events: { history: 10 }\n")
      const disk = yield* stuckDisk(dir)
      const files = yield* startFiles(configFile, routesDir)
      disk.stick()
      // Its first step, the read of the routes directory, waits on the disk.
      const listing = yield* Effect.forkChild(Effect.flip(files.list), { startImmediately: true })
      yield* TestClock.adjust("10 seconds")
      const failure = yield* outcomeOf(listing, "the listing")
      assert.instanceOf(failure, FileOperationTimedOut)
      assert.strictEqual(failure.message, 'listing of routes file "*" did not finish within 10000 ms')
      yield* disk.release
      assert.deepStrictEqual(yield* files.list, { config: ["gatehouse.yml"], routes: ["a.yml"] })
    }).pipe(Effect.scoped)
  )
})
