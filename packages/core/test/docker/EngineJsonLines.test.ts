import type * as http from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { DockerFailed } from "@gatehouse-edge/contract/domain"
import { Effect, Fiber, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { makeJsonLines, maxLineChars } from "../../src/docker/EngineJsonLines.js"
import { fakeEngine, serviceOver } from "./FakeEngine.js"

// The stats and events streams are one JSON object a line. A line that is anything else is an answer not
// understood: the stream fails with a typed error (and the events stream, which retries, opens again) instead of
// an exception that killed the stream's reader and left its watchers waiting for good.

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

  it.effect("a line that is not JSON fails the engine's stream, which is opened again", () =>
    Effect.gen(function* () {
      let opened = 0
      const engine = yield* fakeEngine((url: URL, response: http.ServerResponse) => {
        if (url.pathname !== "/events") return void response.writeHead(404).end()
        opened++
        response.writeHead(200, { "Content-Type": "application/json" })
        // The first answer is garbage (a proxy's page, a broken engine); the stream stays open after it.
        response.write(opened === 1 ? "<html>Bad Gateway</html>\n" : `${JSON.stringify(startEvent)}\n`)
      })
      const docker = yield* serviceOver(engine.url)
      const received = yield* Queue.unbounded<string>()
      const fiber = yield* Effect.forkChild(
        Stream.runForEach(docker.events, (event) => Queue.offer(received, `${event.action} ${event.name}`))
      )
      // The retry waits on the TestClock (0.5 s, doubling): moved on until the engine is asked again.
      yield* waitFor(
        Effect.andThen(
          TestClock.adjust("1 second"),
          Effect.sync(() => opened)
        ),
        (n) => n >= 2,
        "the events stream opened again"
      )
      assert.strictEqual(yield* Queue.take(received), "start web")
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.scoped)
  )
})
