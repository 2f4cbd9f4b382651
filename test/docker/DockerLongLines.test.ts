import { assert, describe, it } from "@effect/vitest"
import type { ContainerLogLine } from "@gatehouse-edge/contract/domain"
import { Effect, Fiber } from "effect"
import type { Docker } from "../../packages/core/src/docker/Docker.js"
import { startDockerd } from "../support/Dockerd.js"
import { requireTool } from "../support/e2e.js"
import { collect, serviceOn } from "./EngineSuite.js"

// dockerd cuts a line longer than 16 KiB into messages of 16 KiB, and its `tail` counts those messages: the last 2
// messages of a 20000-character line and `short` are the line's last 3616 characters and `short`. With timestamps,
// a TTY's raw output has a time before each piece. The service gives whole lines, or leaves a line out.

const dockerd = requireTool("dockerd")

const long = "0".repeat(20_000)
// Three short lines, the long one, a short one; then quiet.
const writesLongLine = {
  Cmd: ["sh", "-c", 'echo one; echo two; echo three; printf "%020000d\\n" 0; echo short; exec sleep 1000'],
  StopSignal: "SIGKILL"
}

/** The lines in short: `<long>` for the long line whole, `<N characters>` for any other long text (a piece). */
const textOf = (lines: ReadonlyArray<ContainerLogLine>) =>
  lines
    .map((l) => (l.line === long ? "<long>" : l.line.length > 100 ? `<${l.line.length} characters>` : l.line))
    .join(" | ")

/** Waits until the container has written its last line. */
const written = (docker: Docker["Service"], name: string) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 10_000
    while ((yield* docker.logs(name, { limit: 1 })).at(-1)?.line !== "short") {
      if (Date.now() > deadline) assert.fail(`${name} did not write its lines`)
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
    }
  })

/** The first `n` lines a follow gives (its look back), then the follow is closed. */
const followed = (docker: Docker["Service"], name: string, limit: number, timestamps = false) =>
  Effect.gen(function* () {
    const follow = yield* collect(yield* docker.followLogs(name, { limit, timestamps }))
    const lines = yield* follow.next(limit)
    yield* Fiber.interrupt(follow.fiber)
    return lines
  })

describe.skipIf(dockerd.skip)("a line longer than the engine's 16 KiB messages", { timeout: 90_000 }, () => {
  it.live("read and followed, plain and TTY: whole, or left out; never a piece; `limit` lines when there are", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* startDockerd
        yield* engine.run("plain", writesLongLine)
        yield* engine.run("tty", { ...writesLongLine, Tty: true })
        const docker = yield* serviceOn(engine)
        for (const name of ["plain", "tty"]) {
          yield* written(docker, name)
          assert.strictEqual(textOf(yield* docker.logs(name, { limit: 2 })), "<long> | short", name)
          assert.strictEqual(textOf(yield* docker.logs(name, { limit: 1 })), "short", name)
          // 3 messages back hold 2 lines (the long one is 2 of them): the line before it is there to give as well.
          assert.strictEqual(textOf(yield* docker.logs(name, { limit: 3 })), "three | <long> | short", name)
          assert.strictEqual(textOf(yield* followed(docker, name, 2)), "<long> | short", `${name}, followed`)
          assert.strictEqual(textOf(yield* followed(docker, name, 3)), "three | <long> | short", `${name}, followed`)
        }
      })
    )
  )

  it.live("with timestamps, a TTY's long line is exactly its 20000 characters: no time inside, read or followed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* startDockerd
        yield* engine.run("tty", { ...writesLongLine, Tty: true })
        yield* engine.run("plain", writesLongLine)
        const docker = yield* serviceOn(engine)
        for (const name of ["tty", "plain"]) {
          yield* written(docker, name)
          const read = yield* docker.logs(name, { limit: 2, timestamps: true })
          const follow = yield* followed(docker, name, 2, true)
          for (const lines of [read, follow]) {
            assert.strictEqual(lines[0]?.line.length, 20_000, name)
            assert.isTrue(lines[0]?.line === long, `${name}: ${lines[0]?.line.replace(/0{16,}/g, "0…")}`)
            assert.strictEqual(lines[1]?.line, "short", name)
            for (const line of lines) assert.match(line.timestamp ?? "", /^\d{4}-\d\d-\d\dT/, name)
          }
        }
      })
    )
  )
})
