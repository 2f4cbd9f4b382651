import type * as http from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { DockerFailed } from "@gatehouse-edge/contract/domain"
import { Effect, Fiber, Logger, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { makeJsonLines, makeLenientJsonLines, maxLineChars, SkippedLine } from "../../src/docker/EngineJsonLines.js"
import { fakeEngine, serviceOver } from "./FakeEngine.js"

// The stats and events streams are one JSON object a line. A line that is anything else is an answer not
// understood: the stats stream fails with a typed error instead of an exception that killed the stream's reader and
// left its watchers waiting for good. The events stream, which resumes from the second it broke in and so would be
// sent the same line after every reopen, skips it and logs it.

const notUnderstood = 'Docker host "fake" answered 200: its stream carried a line that is not a JSON object'

describe("the engine's JSON lines", () => {
  it("a line that does not end holds at most maxLineChars, then is a DockerFailed", () => {
    const decode = makeJsonLines("fake")
    const part = Buffer.from(`{"pad":"${"x".repeat(64 * 1024)}`)
    let outcome: ReadonlyArray<unknown> | DockerFailed = []
    for (let i = 0; i < maxLineChars / part.length + 1 && !(outcome instanceof DockerFailed); i++)
      outcome = decode(part)
    assert.instanceOf(outcome, DockerFailed)
    assert.include((outcome as DockerFailed).message, `a line longer than ${maxLineChars} characters`)
  })

  it("are split across chunks, blank lines skipped", () => {
    const decode = makeJsonLines<{ readonly n: number }>("fake")
    assert.deepStrictEqual(decode(Buffer.from('{"n":1}\n{"n"')), [{ n: 1 }])
    assert.deepStrictEqual(decode(Buffer.from(':2}\n\n{"n":3}\n')), [{ n: 2 }, { n: 3 }])
  })

  it("anything but a JSON object is a DockerFailed, whatever the line", () => {
    for (const line of ["<html>", "null", "42", '"text"', "[1]", '{"n":1'])
      assert.instanceOf(makeJsonLines("fake")(Buffer.from(`${line}\n`)), DockerFailed, line)
    const failure = makeJsonLines("fake")(Buffer.from('{"n":1}\nBad Gateway\n'))
    assert.instanceOf(failure, DockerFailed)
    assert.strictEqual((failure as DockerFailed).message, notUnderstood)
  })
})

describe("the engine's JSON lines, leniently (the events)", () => {
  it("a line that is not a JSON object is skipped, the lines around it decoded", () => {
    const decode = makeLenientJsonLines<{ readonly n: number }>()
    assert.deepStrictEqual(decode(Buffer.from('{"n":1}\n<html>Bad Gateway</html>\n[2]\n{"n"')), [
      { n: 1 },
      new SkippedLine("<html>Bad Gateway</html>", 24),
      new SkippedLine("[2]", 3)
    ])
    assert.deepStrictEqual(decode(Buffer.from(":3}\n")), [{ n: 3 }])
  })

  it("a line longer than maxLineChars is dropped as it comes, not held, and the next line is decoded", () => {
    const decode = makeLenientJsonLines<{ readonly n: number }>()
    const part = `{"pad":"${"x".repeat(64 * 1024)}`
    const chunks = Math.ceil(maxLineChars / part.length) + 2
    const out: Array<unknown> = []
    for (let i = 0; i < chunks; i++) out.push(...decode(Buffer.from(part)))
    assert.deepStrictEqual(out, [], "nothing until the line ends")
    const [skipped, next] = decode(Buffer.from('"}\n{"n":1}\n'))
    assert.instanceOf(skipped, SkippedLine)
    assert.strictEqual((skipped as SkippedLine).length, chunks * part.length + 2)
    assert.strictEqual((skipped as SkippedLine).head, part.slice(0, 120))
    assert.deepStrictEqual(next, { n: 1 })
  })
})

const startEvent = {
  Type: "container",
  Action: "start",
  Actor: { ID: "c0ffee", Attributes: { name: "web" } },
  time: 1_700_000_000,
  timeNano: 1_700_000_000_000_000_000
}

describe("the JSON streams of the real service", () => {
  // On the wall clock: a watcher that hears nothing (the reader died) is what this would catch, within 5 s.
  it.live("a stats watcher hears the failure of a line that is not JSON, and the engine's stream is closed", () =>
    Effect.gen(function* () {
      let closed = false
      const engine = yield* fakeEngine((url: URL, response: http.ServerResponse) => {
        if (!url.pathname.endsWith("/stats")) return void response.writeHead(404).end()
        response.writeHead(200, { "Content-Type": "application/json" })
        response.write("Bad Gateway\n")
        response.on("close", () => {
          closed = true
        })
      })
      const docker = yield* serviceOver(engine.url)
      const error = yield* Effect.flip(Stream.runDrain(yield* docker.watchStats("mixed"))).pipe(
        Effect.timeoutOrElse({
          duration: "5 seconds",
          orElse: () => Effect.sync(() => assert.fail("the stats watcher heard nothing"))
        })
      )
      assert.instanceOf(error, DockerFailed)
      assert.strictEqual(error.message, notUnderstood)
      yield* waitFor(
        Effect.sync(() => closed),
        (c) => c,
        "the engine's stats stream closed"
      )
    }).pipe(Effect.scoped)
  )

  it.effect(
    "a line that is not JSON is logged and skipped: the events after it come, also when a reopen replays it",
    () =>
      Effect.gen(function* () {
        let opened = 0
        const stopEvent = {
          ...startEvent,
          Action: "stop",
          time: startEvent.time + 1,
          timeNano: startEvent.timeNano + 1e9
        }
        const engine = yield* fakeEngine((url: URL, response: http.ServerResponse) => {
          if (url.pathname !== "/events") return void response.writeHead(404).end()
          opened++
          response.writeHead(200, { "Content-Type": "application/json" })
          // Garbage between two events (a proxy's page, a broken engine); the first answer then ends (the daemon
          // restarted), and the reopen from the same second is sent all of it again, and one more event.
          const lines = ["<html>Bad Gateway</html>", JSON.stringify(startEvent)]
          if (opened === 1) response.end(`${lines.join("\n")}\n`)
          else response.write(`${[...lines, JSON.stringify(stopEvent)].join("\n")}\n`)
        })
        const docker = yield* serviceOver(engine.url)
        const received = yield* Queue.unbounded<string>()
        const logged: Array<string> = []
        const fiber = yield* Effect.forkChild(
          Stream.runForEach(docker.events, (event) => Queue.offer(received, `${event.action} ${event.name}`)).pipe(
            Effect.provide(Logger.layer([Logger.make(({ message }) => logged.push(String(message)))]))
          )
        )
        assert.strictEqual(yield* Queue.take(received), "start web")
        // The retry after the end waits on the TestClock (0.5 s, doubling): moved on until the engine is asked again.
        yield* waitFor(
          Effect.andThen(
            TestClock.adjust("1 second"),
            Effect.sync(() => opened)
          ),
          (n) => n >= 2,
          "the events stream opened again"
        )
        assert.strictEqual(yield* Queue.take(received), "stop web", "the replayed start is not repeated")
        const skip =
          'Docker host "fake": skipped an event line that is not a JSON object (24 characters): "<html>Bad Gateway</html>"'
        assert.deepStrictEqual(
          logged.filter((line) => line.includes("skipped an event line")),
          [skip, skip]
        )
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.scoped)
  )
})
