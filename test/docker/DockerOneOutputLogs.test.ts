import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Queue, Stream } from "effect"
import { startDockerd } from "../support/Dockerd.js"
import { requireTool } from "../support/e2e.js"
import { serviceOn } from "./EngineSuite.js"

// The engine's `tail` counts both outputs before it leaves one out: asked for the last 2 lines of stdout when the
// last 50 lines were stderr, it gives nothing. The service reads past them, for a read and for a follow.

const dockerd = requireTool("dockerd")

describe.skipIf(dockerd.skip)("one output's last lines", { timeout: 90_000 }, () => {
  it.live("read and followed: the last lines of stdout alone, past 50 newer lines of stderr", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* startDockerd
        const id = yield* engine.run("mixed", {
          Cmd: [
            "sh",
            "-c",
            "for i in 1 2 3; do echo out $i; done; i=0; while [ $i -lt 50 ]; do i=$((i+1)); echo err $i >&2; done; " +
              "while [ ! -s /tmp/go ]; do sleep 0.05; done; echo out 4; exec sleep 1000"
          ],
          StopSignal: "SIGKILL"
        })
        const docker = yield* serviceOn(engine)
        const deadline = Date.now() + 10_000
        while ((yield* docker.logs("mixed", { limit: 1, stdout: false })).at(-1)?.line !== "err 50") {
          if (Date.now() > deadline) assert.fail("the container did not write its lines")
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
        }
        const read = yield* docker.logs("mixed", { limit: 2, stderr: false })
        assert.deepStrictEqual(
          read.map((l) => l.line),
          ["out 2", "out 3"]
        )

        const received = yield* Queue.unbounded<string>()
        const follow = yield* docker.followLogs("mixed", { limit: 2, stderr: false })
        const fiber = yield* Effect.forkChild(Stream.runForEach(follow, (l) => Queue.offer(received, l.line)))
        assert.deepStrictEqual(yield* Effect.all([Queue.take(received), Queue.take(received)]), ["out 2", "out 3"])
        const exec = yield* engine.api("POST", `/containers/${id}/exec`, { Cmd: ["sh", "-c", "echo go > /tmp/go"] })
        assert.strictEqual(exec.status, 201, exec.body)
        const started = yield* engine.api("POST", `/exec/${JSON.parse(exec.body).Id}/start`, { Detach: true })
        assert.strictEqual(started.status, 200, started.body)
        assert.strictEqual(yield* Queue.take(received), "out 4", "then it follows stdout, without stderr")
        yield* Fiber.interrupt(fiber)
      })
    )
  )
})
