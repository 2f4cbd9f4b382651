import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { silentServer } from "../../../../test/support/SilentServer.js"
import { engineCallTimeoutMs, makeDockerEngine } from "../../src/docker/DockerEngine.js"
import { DockerHostUnreachable } from "../../src/index.js"

describe("a Docker engine that accepts connections and never answers", () => {
  it.effect("fails a call as unreachable after the call timeout, then fails at once with the same error", () =>
    Effect.gen(function* () {
      const silent = yield* silentServer
      const engine = yield* makeDockerEngine({ name: "stuck", url: `tcp://127.0.0.1:${silent.port}`, tls: undefined })
      const listing = yield* Effect.forkChild(engine.call((d) => d.listContainers({ all: true })))
      yield* TestClock.adjust(engineCallTimeoutMs)
      const error = yield* Effect.flip(Fiber.join(listing))
      assert.instanceOf(error, DockerHostUnreachable)
      assert.strictEqual(error.message, 'Docker host "stuck" is unreachable: no answer within 30 s')
      // During the back-off: at once, and word for word the same (a changing text was a new problem each read).
      yield* TestClock.adjust("100 millis")
      const again = yield* Effect.flip(engine.call((d) => d.listContainers({ all: true })))
      assert.strictEqual(again.message, error.message)
      const stream = yield* Effect.flip(engine.stream("/events"))
      assert.strictEqual(stream.message, error.message)
    }).pipe(Effect.scoped)
  )
})
