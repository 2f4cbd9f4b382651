import * as net from "node:net"
import type { Readable } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { DockerFailed, DockerHostUnreachable } from "@gatehouse-edge/contract/domain"
import { Effect, Exit, Fiber, Option, Stream } from "effect"
import { freePort } from "../../../../test/support/FreePort.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { makeDockerEngine } from "../../src/docker/DockerEngine.js"
import { EngineErrorStatus, openEngineStream } from "../../src/docker/EngineHttpStream.js"
import { fromEngineStream } from "../../src/docker/EngineStreams.js"

// The engine's side played by a plain TCP server: what a stream request looks like on the wire, and every way the
// answer can come (split anywhere, raw or framed, an error status, garbage, nothing, a connection cut midway).

type Answer = (socket: net.Socket, request: string) => void

/** A server on `host` (127.0.0.1) that reads each request's head and lets `answer` reply; records the requests. */
const fakeEngine = (answer: Answer, host = "127.0.0.1") =>
  Effect.gen(function* () {
    const requests: Array<string> = []
    const closed: Array<boolean> = []
    const sockets = new Set<net.Socket>()
    const server = net.createServer((socket) => {
      sockets.add(socket)
      socket.on("error", () => {})
      socket.on("close", () => {
        sockets.delete(socket)
        closed.push(true)
      })
      let text = ""
      const onData = (chunk: Buffer) => {
        text += chunk.toString("latin1")
        if (!text.includes("\r\n\r\n")) return
        socket.off("data", onData)
        requests.push(text)
        answer(socket, text)
      }
      socket.on("data", onData)
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, host, () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const s of sockets) s.destroy()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as net.AddressInfo).port
    return { port, requests, closed, connect: () => net.connect({ host, port }) }
  })

/** Writes `bytes` one piece of `size` at a time, a few ms apart (so each is a read of its own), then `then`. */
const trickle = (socket: net.Socket, bytes: Buffer, size: number, then: () => void) => {
  let at = 0
  const next = () => {
    if (socket.destroyed) return
    if (at >= bytes.length) return then()
    socket.write(bytes.subarray(at, at + size))
    at += size
    setTimeout(next, 2)
  }
  next()
}

/** Everything the readable gives until it ends, or its error. */
const drain = (readable: Readable) =>
  Effect.callback<string, Error>((resume) => {
    const chunks: Array<Buffer> = []
    readable.on("data", (chunk: Buffer) => chunks.push(chunk))
    readable.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString())))
    readable.on("error", (error) => resume(Effect.fail(error)))
    readable.resume()
  })

/**
 * A TCP port on 127.0.0.1 that nothing listens on: below the ephemeral range, in this worker's slice (FreePort.ts),
 * so no other test file's `listen(0)` takes it meanwhile.
 */
const closedPort = freePort

const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`

describe("openEngineStream", () => {
  it.live(
    "asks in HTTP/1.0; a head split anywhere; the raw body, with bytes read along with the head, until the close",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* fakeEngine((socket) => {
            const head = "HTTP/1.0 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\nfirst "
            trickle(socket, Buffer.from(head), 3, () =>
              trickle(socket, Buffer.from("second\nthird\n"), 5, () => socket.end())
            )
          })
          const body = yield* openEngineStream(engine.connect, "/containers/abc/logs?follow=true")
          assert.isTrue(body.isPaused(), "handed over paused: nothing is lost before its reader attaches")
          assert.strictEqual(yield* drain(body), "first second\nthird\n")
          assert.strictEqual(
            engine.requests[0],
            "GET /containers/abc/logs?follow=true HTTP/1.0\r\nHost: docker\r\n\r\n"
          )
        })
      )
  )

  it.live("a chunked or sized body (a proxy in between) is unframed and ends where its framing says", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const chunked = yield* fakeEngine((socket) => {
          const bytes = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk("one\n")}${chunk("twö\n")}0\r\n\r\n`
          // The connection stays open: the framing, not the close, ends the body.
          trickle(socket, Buffer.from(bytes), 4, () => {})
        })
        assert.strictEqual(yield* drain(yield* openEngineStream(chunked.connect, "/x")), "one\ntwö\n")
        const sized = yield* fakeEngine((socket) => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"))
        assert.strictEqual(yield* drain(yield* openEngineStream(sized.connect, "/x")), "hello")
      })
    )
  )

  it.live(
    "a framed body cut before its end fails; a raw one ends (the pump asks the engine whether it is still there)",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const chunked = yield* fakeEngine((socket) =>
            socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunk("one\n")}`, () =>
              socket.destroy()
            )
          )
          const cut = yield* Effect.flip(drain(yield* openEngineStream(chunked.connect, "/x")))
          assert.match(cut.message, /ended before its body/)
          const raw = yield* fakeEngine((socket) =>
            socket.write("HTTP/1.0 200 OK\r\n\r\none\n", () => socket.destroy())
          )
          assert.strictEqual(yield* drain(yield* openEngineStream(raw.connect, "/x")), "one\n")
        })
      )
  )

  it.live("an error status fails with the engine's message, from JSON or as text, framed or not", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const json = yield* fakeEngine((socket) =>
          socket.end(
            'HTTP/1.0 404 Not Found\r\nContent-Type: application/json\r\n\r\n{"message":"No such container: abc"}\n'
          )
        )
        const notFound = yield* Effect.flip(openEngineStream(json.connect, "/x"))
        assert.instanceOf(notFound, EngineErrorStatus)
        assert.deepStrictEqual([notFound.statusCode, notFound.message], [404, "No such container: abc"])
        const text = yield* fakeEngine((socket) =>
          socket.write(
            `HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n${chunk("it broke")}0\r\n\r\n`
          )
        )
        const failed = yield* Effect.flip(openEngineStream(text.connect, "/x"))
        assert.instanceOf(failed, EngineErrorStatus)
        assert.deepStrictEqual([failed.statusCode, failed.message], [500, "it broke"])
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
        assert.deepStrictEqual(text.closed, [true], "the connection of an error is closed")
      })
    )
  )

  it.live("no answer, a close before the head, or not HTTP: the connection's error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const silent = yield* fakeEngine((socket) => socket.end())
        assert.match((yield* Effect.flip(openEngineStream(silent.connect, "/x"))).message, /closed the connection/)
        const garbage = yield* fakeEngine((socket) => socket.end("SSH-2.0-OpenSSH_9.2\r\n"))
        assert.match((yield* Effect.flip(openEngineStream(garbage.connect, "/x"))).message, /not an HTTP response/)
        const port = yield* closedPort
        const refused = yield* Effect.flip(openEngineStream(() => net.connect({ host: "127.0.0.1", port }), "/x"))
        assert.match(refused.message, /ECONNREFUSED/)
      })
    )
  )

  it.live("destroying the body closes the connection (the engine's stream ends)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* fakeEngine((socket) => socket.write("HTTP/1.0 200 OK\r\n\r\nline\n"))
        const body = yield* openEngineStream(engine.connect, "/x")
        body.destroy()
        const deadline = Date.now() + 5_000
        while (engine.closed.length === 0 && Date.now() < deadline) {
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
        }
        assert.deepStrictEqual(engine.closed, [true])
      })
    )
  )
})

describe("DockerEngine.stream", () => {
  const engineAt = (url: string) => makeDockerEngine({ name: "local", url, tls: undefined })

  it.live("maps an error status to DockerFailed, no answer to DockerHostUnreachable with the back-off", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* fakeEngine((socket) =>
          socket.end('HTTP/1.0 404 Not Found\r\n\r\n{"message":"No such container: abc"}')
        )
        const docker = yield* engineAt(`tcp://127.0.0.1:${engine.port}`)
        const failed = yield* Effect.flip(docker.stream("/containers/abc/logs"))
        assert.instanceOf(failed, DockerFailed)
        assert.deepStrictEqual([failed.status, failed.detail], [404, "No such container: abc"])

        const down = yield* engineAt("unix:///nonexistent/gatehouse-test.sock")
        const unreachable = yield* Effect.flip(down.stream("/x"))
        assert.instanceOf(unreachable, DockerHostUnreachable)
        // The kind of failure, not the driver's text with the socket's path.
        assert.strictEqual(unreachable.message, 'Docker host "local" is unreachable: no socket at its address')
        // An engine that hangs up without answering: backed off, as its other calls are. The next call fails at
        // once with the same error (word for word: a re-read of the routes must not see a new problem), without
        // a second connection.
        const hangingUp = yield* fakeEngine((socket) => socket.destroy())
        const dropped = yield* engineAt(`tcp://127.0.0.1:${hangingUp.port}`)
        const first = yield* Effect.flip(dropped.stream("/x"))
        assert.instanceOf(first, DockerHostUnreachable)
        const again = yield* Effect.flip(dropped.stream("/x"))
        assert.strictEqual(again.message, first.message)
        assert.strictEqual(hangingUp.requests.length, 1, "no second connection during the back-off")
      })
    )
  )

  it.live("reaches a TCP engine by an IPv6 address", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* fakeEngine((socket) => socket.end("HTTP/1.0 200 OK\r\n\r\nhello"), "::1")
        const docker = yield* engineAt(`tcp://[::1]:${engine.port}`)
        assert.strictEqual(yield* drain(yield* docker.stream("/x")), "hello")
      })
    )
  )

  it.live("a raw follow through fromEngineStream: lines, then the end; a daemon gone at the close fails it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* fakeEngine((socket) => socket.end("HTTP/1.0 200 OK\r\n\r\none\ntwo\n"))
        const docker = yield* engineAt(`tcp://127.0.0.1:${engine.port}`)
        const lines = (stillThere: Effect.Effect<void, DockerHostUnreachable>) =>
          fromEngineStream({
            host: "local",
            open: docker.stream("/x"),
            decode: (chunk) =>
              chunk
                .toString()
                .split("\n")
                .filter((l) => l !== ""),
            stillThere
          })
        assert.deepStrictEqual([...(yield* Stream.runCollect(lines(Effect.void)))], ["one", "two"])
        const gone = new DockerHostUnreachable({ host: "local", detail: "connect ECONNREFUSED" })
        const exit = yield* Effect.exit(Stream.runCollect(lines(Effect.fail(gone))))
        assert.deepStrictEqual(exit, Exit.fail(gone))
      })
    )
  )

  it.live("a stream whose engine never answers is given up at once when its reader goes away", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // The request is read and never answered: the open waits for the status line (up to the call timeout, 30 s).
        const engine = yield* fakeEngine(() => {})
        const docker = yield* engineAt(`tcp://127.0.0.1:${engine.port}`)
        const reading = yield* Effect.forkChild(
          Stream.runDrain(
            fromEngineStream({ host: "local", open: docker.stream("/x"), decode: () => [], stillThere: Effect.void })
          )
        )
        yield* waitFor(
          Effect.sync(() => engine.requests.length),
          (n) => n === 1,
          "the stream's request"
        )
        // A server stopping, a watcher leaving: the reader is interrupted while the open still waits.
        const stopped = yield* Fiber.interrupt(reading).pipe(Effect.timeoutOption("5 seconds"))
        assert.isTrue(Option.isSome(stopped), "the open held the reader until the engine's call timeout")
        // And the connection is not left open on the engine.
        yield* waitFor(
          Effect.sync(() => engine.closed.length),
          (n) => n === 1,
          "the stream's connection closed"
        )
      })
    )
  )
})
