import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { FileOperationTimedOut, FileWriteBusy, RateLimited } from "@gatehouse-edge/contract/domain"
import { Deferred, Effect } from "effect"
import { TestClock } from "effect/testing"
import { stuckDisk } from "../../../../test/support/StuckDisk.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import { filesLayout, holdingWriteOf, outcomeOf } from "./FilesFixtures.js"
import { startFiles } from "./StartFiles.js"

describe("a file write stuck on the disk", () => {
  it.effect("fails within its bound, a write behind it is refused instead of hanging, and the file is left whole", () =>
    Effect.gen(function* () {
      const { dir, routesDir, configFile } = yield* filesLayout({ "a.yml": "one:\n  port: 1\n" })
      const file = path.join(routesDir, "a.yml")
      const disk = yield* stuckDisk(dir)
      // The disk sticks while the first write is validated: it holds the lock, and its new content is staged next.
      const validating = yield* Deferred.make<void>()
      let onValidate: Effect.Effect<void> = Effect.void
      const validator = RouteValidator.of({
        ...RouteValidatorLive.inline,
        validateSources: (sources) =>
          Effect.suspend(() => {
            const hook = onValidate
            onValidate = Effect.void
            return Effect.andThen(hook, RouteValidatorLive.inline.validateSources(sources))
          })
      })
      // The service's own bounds: 10 s for the lock and for each file operation.
      const files = yield* startFiles(configFile, routesDir, { validator })
      const { revision } = yield* files.read("routes", "a.yml")
      onValidate = Effect.andThen(Effect.sync(disk.stick), Deferred.succeed(validating, undefined))

      const first = yield* Effect.forkChild(Effect.flip(files.write("routes", "a.yml", "one:\n  port: 2\n")))
      yield* Deferred.await(validating)
      const second = yield* Effect.forkChild(Effect.flip(files.write("routes", "b.yml", "two:\n  port: 3\n")))
      yield* TestClock.adjust("10 seconds")

      const stuck = yield* outcomeOf(first, "the stuck write")
      assert.instanceOf(stuck, FileOperationTimedOut)
      assert.strictEqual(stuck.message, 'writing of routes file "a.yml" did not finish within 10000 ms')
      const busy = yield* outcomeOf(second, "the write behind it")
      assert.instanceOf(busy, FileWriteBusy)
      assert.strictEqual(
        busy.message,
        'routes file "b.yml" was not written: another file write has not finished after 10000 ms; try again later'
      )
      // Nothing was put in place: the stuck write gave up before its rename.
      assert.strictEqual(fs.readFileSync(file, "utf8"), "one:\n  port: 1\n")

      // Once the disk answers, the stuck write's staging ends and is dropped, never put in place after its writer
      // was told it failed: the next write finds the file as it was read before (If-Match), the lock free again.
      yield* disk.release
      const { written } = yield* files.write("routes", "a.yml", "one:\n  port: 4\n", { ifMatch: [revision] })
      assert.strictEqual(written.message, "routes file a.yml written and applied")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "one:\n  port: 4\n")
      assert.deepStrictEqual(fs.readdirSync(routesDir), ["a.yml"])
    }).pipe(Effect.scoped)
  )

  it.effect("a queue that moves is waited in past the lock timeout: only a write held that long refuses the rest", () =>
    Effect.gen(function* () {
      const { routesDir, configFile } = yield* filesLayout()
      // Each write's own check (its file last) waits until the test lets it go, so the test decides how long each
      // write holds the lock; the reloads that follow the writes pass.
      const gates = new Map<string, Deferred.Deferred<void>>()
      for (const name of ["a.yml", "b.yml", "c.yml"]) gates.set(name, yield* Deferred.make<void>())
      const checking = new Map<string, Deferred.Deferred<void>>()
      for (const name of gates.keys()) checking.set(name, yield* Deferred.make<void>())
      const validator = RouteValidator.of({
        ...RouteValidatorLive.inline,
        validateSources: (sources) =>
          Effect.gen(function* () {
            const name = sources.at(-1)?.file ?? ""
            const gate = gates.get(name)
            if (gate !== undefined) {
              gates.delete(name)
              yield* Deferred.succeed(checking.get(name)!, undefined)
              yield* Deferred.await(gate)
            }
            return yield* RouteValidatorLive.inline.validateSources(sources)
          })
      })
      const open = new Map([...gates])
      const files = yield* startFiles(configFile, routesDir, { validator })
      const write = (name: string) => Effect.forkChild(files.write("routes", `${name}.yml`, `${name}:\n  port: 1\n`))
      const first = yield* write("a")
      yield* Deferred.await(checking.get("a.yml")!)
      const second = yield* write("b")
      const third = yield* write("c")

      // The first holds the lock 6 s, then the second 6 s: the third has waited 12 s, but no write held it 10 s.
      yield* TestClock.adjust("6 seconds")
      yield* Deferred.succeed(open.get("a.yml")!, undefined)
      yield* outcomeOf(first, "the first write")
      yield* Deferred.await(checking.get("b.yml")!)
      yield* TestClock.adjust("6 seconds")
      assert.isUndefined(third.pollUnsafe(), "the third write was refused while the queue moved")
      yield* Deferred.succeed(open.get("b.yml")!, undefined)
      yield* outcomeOf(second, "the second write")
      yield* Deferred.await(checking.get("c.yml")!)
      yield* Deferred.succeed(open.get("c.yml")!, undefined)
      const { written } = yield* outcomeOf(third, "the third write")
      assert.strictEqual(written.message, "routes file c.yml written and applied")
      assert.deepStrictEqual(fs.readdirSync(routesDir).sort(), ["a.yml", "b.yml", "c.yml"])
    }).pipe(Effect.scoped)
  )

  it.effect("a reload that hangs after the rename fails the write as `reloading`, the new content in place", () =>
    Effect.gen(function* () {
      const { routesDir, configFile } = yield* filesLayout()
      // The write's own check passes; the reload after it (the second validation of a.yml) never ends.
      let checks = 0
      const reloading = yield* Deferred.make<void>()
      const validator = RouteValidator.of({
        ...RouteValidatorLive.inline,
        validateSources: (sources) =>
          Effect.suspend(() => {
            if (sources.at(-1)?.file !== "a.yml" || ++checks < 2)
              return RouteValidatorLive.inline.validateSources(sources)
            return Effect.andThen(Deferred.succeed(reloading, undefined), Effect.never)
          })
      })
      const files = yield* startFiles(configFile, routesDir, { validator })
      const write = yield* Effect.forkChild(Effect.flip(files.write("routes", "a.yml", "one:\n  port: 2\n")))
      yield* Deferred.await(reloading)
      yield* TestClock.adjust("10 seconds")
      const failure = yield* outcomeOf(write, "the write whose reload hangs")
      assert.instanceOf(failure, FileOperationTimedOut)
      assert.strictEqual(failure.message, 'reloading of routes file "a.yml" did not finish within 10000 ms')
      assert.strictEqual(fs.readFileSync(path.join(routesDir, "a.yml"), "utf8"), "one:\n  port: 2\n")
    }).pipe(Effect.scoped)
  )

  it.effect("writes that would make the queue hold more than its bytes are refused with 429, nothing queued", () =>
    Effect.gen(function* () {
      const { routesDir, configFile } = yield* filesLayout()
      // The first write holds the lock in its check until the test lets it go.
      const { validator, holding, release } = yield* holdingWriteOf("a.yml")
      const files = yield* startFiles(configFile, routesDir, { validator, limits: { maxQueuedBytes: 10_000 } })
      // A route and a comment of `bytes` bytes in all.
      const content = (name: string, bytes: number) => {
        const head = `${name}:\n  port: 1\n#`
        return `${head}${"x".repeat(bytes - head.length - 1)}\n`
      }
      const first = yield* Effect.forkChild(files.write("routes", "a.yml", content("a", 3_000)))
      yield* Deferred.await(holding)
      // Started at once: each runs until it waits for the lock, counted in the queue by then.
      const queue = (name: string) =>
        Effect.forkChild(files.write("routes", `${name}.yml`, content(name, 3_000)), { startImmediately: true })
      const queued = [yield* queue("b"), yield* queue("c")]
      // 9,000 bytes wait or write: 3,000 more would pass 10,000.
      const refused = yield* Effect.flip(files.write("routes", "d.yml", content("d", 3_000)))
      assert.instanceOf(refused, RateLimited)
      assert.strictEqual(
        refused.message,
        'routes file "d.yml" was not written: other file writes are waiting; try again later'
      )
      // Once the queue has drained, the same write goes through.
      yield* Deferred.succeed(release, undefined)
      for (const fiber of [first, ...queued]) yield* outcomeOf(fiber, "a queued write")
      const { written } = yield* files.write("routes", "d.yml", content("d", 3_000))
      assert.strictEqual(written.message, "routes file d.yml written and applied")
    }).pipe(Effect.scoped)
  )
})
