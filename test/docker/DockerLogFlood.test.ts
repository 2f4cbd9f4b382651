import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { WebSocket } from "ws"
import { request } from "../../packages/transport-http/test/support/Http.js"
import { requireTool } from "../support/e2e.js"
import { dockerWorld } from "./DockerWorld.js"

// A container that writes 50 MB of logs as fast as it can, followed by a client that reads and one that stops
// reading (its TCP socket paused): the reader gets every line, the other is dropped with 1008, and the shared
// follow is never overrun in between (it waits for its slowest client, within the WebSocket drain limits).

const dockerd = requireTool("dockerd")

const lineText = "x".repeat(100)
const lineCount = 500_000 // 50.5 MB with the newlines

/** A follower that counts the lines it receives and checks each one. */
const countingFollower = (url: string, key: string) => {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } })
  const state = { lines: 0, wrong: 0, watchers: [] as Array<() => void> }
  socket.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as { stream: string; line: string }
    if (frame.stream === "stdout" && frame.line === lineText) state.lines++
    else state.wrong++
    for (const watch of state.watchers) watch()
  })
  const closed = new Promise<{ code: number; reason: string }>((done) =>
    socket.on("close", (code, reason) => done({ code, reason: reason.toString() }))
  )
  socket.on("error", () => {})
  const opened = new Promise<void>((done, fail) => {
    socket.on("open", () => done())
    socket.on("unexpected-response", (_req, res) => fail(new Error(`refused: ${res.statusCode}`)))
  })
  /** Resolves once `lines` lines have come, or rejects when the socket closes first. */
  const reached = (lines: number) =>
    new Promise<void>((done, fail) => {
      const check = () => {
        if (state.lines >= lines) done()
      }
      state.watchers.push(check)
      check()
      void closed.then((c) => fail(new Error(`closed (${c.code} ${c.reason}) after ${state.lines} lines`)))
    })
  return { socket, state, closed, opened, reached }
}

describe.skipIf(dockerd.skip)("50 MB of logs through a shared follow", { timeout: 120_000 }, () => {
  it.live(
    "the reading client gets every line; the one that stops reading is dropped with 1008; the server stays up",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { engine, server, key } = yield* dockerWorld()
          // The flood starts when the test says so (a file appears), once both clients follow.
          const id = yield* engine.run("flood", {
            Cmd: [
              "sh",
              "-c",
              `while [ ! -s /tmp/go ]; do sleep 0.05; done; yes ${lineText} | head -n ${lineCount}; exec sleep 1000`
            ],
            StopSignal: "SIGKILL"
          })
          const url = `${server.wsUrl}/docker/logs/flood`
          const reader = countingFollower(url, key)
          const stalled = countingFollower(url, key)
          yield* Effect.addFinalizer(() =>
            Effect.sync(() => {
              reader.socket.terminate()
              stalled.socket.terminate()
            })
          )
          yield* Effect.promise(() => Promise.all([reader.opened, stalled.opened]))
          // A client that stops reading: its kernel buffers fill, then the server's queue for it.
          ;(stalled.socket as unknown as { _socket: { pause: () => void } })._socket.pause()

          const exec = yield* engine.api("POST", `/containers/${id}/exec`, { Cmd: ["sh", "-c", "echo go > /tmp/go"] })
          assert.strictEqual(exec.status, 201, exec.body)
          const started = yield* engine.api("POST", `/exec/${JSON.parse(exec.body).Id}/start`, { Detach: true })
          assert.strictEqual(started.status, 200, started.body)

          // The stalled client can hold back the shared follow by at most its buffers (the follow's 4096 lines, the
          // server's queue, the kernel's socket buffers: well under 100,000 of these lines); past that the reader
          // only gets on because the stalled client was dropped. It reads what was queued, then the close.
          yield* Effect.promise(() => reader.reached(150_000))
          stalled.socket.resume()
          const dropped = yield* Effect.promise(() => stalled.closed)
          assert.strictEqual(dropped.code, 1008, dropped.reason)
          assert.isBelow(stalled.state.lines, 150_000)

          yield* Effect.promise(() => reader.reached(lineCount))
          assert.strictEqual(reader.state.lines, lineCount, "every line, none twice")
          assert.strictEqual(reader.state.wrong, 0, "no line cut, merged or from the wrong stream")
          assert.strictEqual((yield* request(`${server.baseUrl}/docker/logs/flood?limit=3`, { key })).status, 200)
        })
      )
  )
})
