import * as fs from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { FileOperationTimedOut, RateLimited } from "@gatehouse-edge/contract/domain"
import { Data, Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { filesLayout, holdingWriteOf } from "./FilesFixtures.js"
import { startFiles } from "./StartFiles.js"

class BodyCutShort extends Data.TaggedError("BodyCutShort")<{}> {}

// A route and a comment of `bytes` bytes in all.
const content = (name: string, bytes: number) => {
  const head = `${name}:\n  port: 1\n#`
  return `${head}${"x".repeat(bytes - head.length - 1)}\n`
}

describe("a write whose content is still to come", () => {
  it.effect(
    "is counted in the queue at its most before it is read, then at what it is, and given back if it fails",
    () =>
      Effect.gen(function* () {
        const { routesDir, configFile } = yield* filesLayout()
        // The first write holds the lock in its check until the test lets it go.
        const { validator, holding, release } = yield* holdingWriteOf("a.yml")
        const files = yield* startFiles(configFile, routesDir, { validator, limits: { maxQueuedBytes: 10_000 } })
        const first = yield* Effect.forkChild(files.write("routes", "a.yml", content("a", 3_000)))
        yield* Deferred.await(holding)

        // 3,000 bytes queued: content announced at 8,000 is refused without being read.
        let reads = 0
        const pending = (text: string, maxBytes: number) => ({
          maxBytes,
          read: Effect.sync(() => {
            reads++
            return text
          })
        })
        const refused = yield* Effect.flip(files.write("routes", "b.yml", pending(content("b", 1_000), 8_000)))
        assert.instanceOf(refused, RateLimited)
        assert.strictEqual(reads, 0)

        // A body cut short fails the write with its own error and gives its 7,000 back.
        const cut = yield* Effect.flip(
          files.write("routes", "b.yml", { maxBytes: 7_000, read: Effect.fail(new BodyCutShort()) })
        )
        assert.instanceOf(cut, BodyCutShort)

        // Announced at 7,000 (all that is left), it counts as its 1,000 bytes once read: 6,000 more then fit.
        const second = yield* Effect.forkChild(files.write("routes", "b.yml", pending(content("b", 1_000), 7_000)), {
          startImmediately: true
        })
        assert.strictEqual(reads, 1)
        const third = yield* Effect.forkChild(files.write("routes", "c.yml", pending(content("c", 6_000), 6_000)), {
          startImmediately: true
        })
        assert.isUndefined(third.pollUnsafe(), "the write that fits was refused")
        // 10,000 bytes now wait or write: one more is refused.
        assert.instanceOf(yield* Effect.flip(files.write("routes", "d.yml", content("d", 100))), RateLimited)

        yield* Deferred.succeed(release, undefined)
        for (const fiber of [first, second, third]) yield* Fiber.join(fiber)
        assert.deepStrictEqual(fs.readdirSync(routesDir).sort(), ["a.yml", "b.yml", "c.yml"])
        // Everything was given back: the whole queue is free.
        const { written } = yield* files.write("routes", "d.yml", pending(content("d", 9_000), 10_000))
        assert.strictEqual(written.message, "routes file d.yml written and applied")
      }).pipe(Effect.scoped)
  )

  it.effect("that does not arrive within its time is refused (504) and gives its share of the queue back", () =>
    Effect.gen(function* () {
      const { routesDir, configFile } = yield* filesLayout()
      const files = yield* startFiles(configFile, routesDir, {
        limits: { maxQueuedBytes: 10_000, receiveTimeout: "30 seconds" }
      })
      // A body that trickles: announced at the whole queue, never complete.
      const trickling = yield* Effect.forkChild(
        Effect.flip(files.write("routes", "slow.yml", { maxBytes: 10_000, read: Effect.never })),
        { startImmediately: true }
      )
      assert.instanceOf(yield* Effect.flip(files.write("routes", "a.yml", content("a", 100))), RateLimited)
      yield* TestClock.adjust("30 seconds")
      const failure = yield* Fiber.join(trickling)
      assert.instanceOf(failure, FileOperationTimedOut)
      assert.strictEqual(failure.message, 'receiving of routes file "slow.yml" did not finish within 30000 ms')
      const { written } = yield* files.write("routes", "a.yml", content("a", 100))
      assert.strictEqual(written.message, "routes file a.yml written and applied")
    }).pipe(Effect.scoped)
  )
})
