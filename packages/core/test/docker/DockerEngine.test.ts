import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Logger } from "effect"
import { TestClock } from "effect/testing"
import { silentServer } from "../../../../test/support/SilentServer.js"
import { engineCallTimeoutMs, makeDockerEngine } from "../../src/docker/DockerEngine.js"
import { DockerHostUnreachable } from "../../src/index.js"
import { tempDir } from "../store/TempDir.js"

describe("a Docker engine that accepts connections and never answers", () => {
  it.effect("fails a call as unreachable after the call timeout, then fails at once with the same error", () =>
    Effect.gen(function* () {
      const silent = yield* silentServer
      const engine = yield* makeDockerEngine({ name: "stuck", url: `tcp://127.0.0.1:${silent.port}`, tls: undefined })
      const listing = yield* Effect.forkChild(engine.call((d) => d.listContainers({ all: true })))
      yield* TestClock.adjust(engineCallTimeoutMs)
      const error = yield* Effect.flip(Fiber.join(listing))
      assert.instanceOf(error, DockerHostUnreachable)
      assert.strictEqual(error.message, 'Docker host "stuck" is unreachable: timed out: no answer within 30 s')
      // During the back-off: at once, and word for word the same (a changing text was a new problem each read).
      yield* TestClock.adjust("100 millis")
      const again = yield* Effect.flip(engine.call((d) => d.listContainers({ all: true })))
      assert.strictEqual(again.message, error.message)
      const stream = yield* Effect.flip(engine.stream("/events"))
      assert.strictEqual(stream.message, error.message)
    }).pipe(Effect.scoped)
  )
})

describe("a Docker engine at a socket that does not exist", () => {
  it.effect("fails with the engine's name and the kind of failure; the driver's text is logged, once", () => {
    const logged: Array<string> = []
    return Effect.gen(function* () {
      const socket = path.join(yield* tempDir, "docker.sock")
      const engine = yield* makeDockerEngine({ name: "local", url: `unix://${socket}`, tls: undefined })
      const first = yield* Effect.flip(engine.call((d) => d.ping()))
      assert.instanceOf(first, DockerHostUnreachable)
      assert.deepStrictEqual([first.host, first.detail], ["local", "no socket at its address"])
      assert.notInclude(first.message, socket)
      // Tried again after the back-off, and failing the same way: word for word the same error (a route problem
      // an engine makes is compared to avoid announcing it again), and no second log line.
      yield* TestClock.adjust("1 second")
      const again = yield* Effect.flip(engine.stream("/events"))
      assert.strictEqual(again.message, first.message)
      assert.deepStrictEqual(logged, [
        `Docker host "local" is unreachable: no socket at its address (connect ENOENT ${socket})`
      ])
    }).pipe(Effect.scoped, Effect.provide(Logger.layer([Logger.make(({ message }) => logged.push(String(message)))])))
  })
})
