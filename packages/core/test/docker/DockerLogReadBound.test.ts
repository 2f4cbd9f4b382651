import type * as http from "node:http"
import { Readable } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { DockerFailed } from "@gatehouse-edge/contract/domain"
import { Effect, Option } from "effect"
import { readBoundedBody } from "../../src/docker/BoundedBody.js"
import { container, fakeEngine, serviceOver } from "./FakeEngine.js"

// A log read holds the engine's answer whole, and a plain GET is under none of the stream limits: a read past a
// flood of the other output widened to 10,000 messages of up to 16 KiB (160 MiB) per request. Each read is bounded
// (small here, 4 MiB in the server); the answer is the newest lines that fit.

interface Message {
  readonly stream: "stdout" | "stderr"
  readonly text: string
  /** A piece of a longer line, as dockerd cuts one at 16 KiB: no newline, the line goes on in the next message. */
  readonly piece?: boolean
}

/** The engine's multiplexed frames of `messages`: an 8-byte header (1 stdout, 2 stderr; the length), the line. */
const frames = (messages: ReadonlyArray<Message>) =>
  Buffer.concat(
    messages.flatMap(({ stream, text, piece }) => {
      const payload = Buffer.from(piece === true ? text : `${text}\n`)
      const header = Buffer.alloc(8)
      header[0] = stream === "stdout" ? 1 : 2
      header.writeUInt32BE(payload.length, 4)
      return [header, payload]
    })
  )

/** Answers `GET /containers/{id}/logs` as dockerd does: the last `tail` messages of the outputs asked for. */
const logsOf = (messages: ReadonlyArray<Message>) => (url: URL, response: http.ServerResponse) => {
  if (url.pathname !== `/containers/${container.id}/logs`) return void response.writeHead(404).end()
  const wanted = (m: Message) => url.searchParams.get(m.stream) !== "false"
  const tail = Number(url.searchParams.get("tail"))
  response.writeHead(200, { "Content-Type": "application/vnd.docker.multiplexed-stream" })
  response.end(frames(messages.filter(wanted).slice(-tail)))
}

const tailsAsked = (requests: ReadonlyArray<URL>) =>
  requests.filter((url) => url.pathname.endsWith("/logs")).map((url) => Number(url.searchParams.get("tail")))

// 109 bytes a message on the wire: 150 of them fit in 16 KiB.
const line = (stream: Message["stream"], n: number): Message => ({ stream, text: `${stream} ${n}`.padEnd(100, ".") })
const cap = 16 * 1024

describe("a log read of the real service, bounded in bytes", () => {
  it.effect("past a flood of the other output: widens only while the window fits, and answers what fit", () =>
    Effect.gen(function* () {
      const messages = [
        ...[1, 2, 3].map((n) => line("stdout", n)),
        ...Array.from({ length: 2000 }, (_, i) => line("stderr", i + 1))
      ]
      const engine = yield* fakeEngine(logsOf(messages))
      const docker = yield* serviceOver(engine.url, { maxLogReadBytes: cap })
      const read = yield* docker.logs(container.name, { limit: 2, stderr: false })
      // 48 messages (5 KiB) fit and hold no stdout; 192 (20 KiB) do not, and no wider window is asked for.
      assert.deepStrictEqual(tailsAsked(engine.requests), [3, 12, 48, 192])
      assert.deepStrictEqual(read, [])
    }).pipe(Effect.scoped)
  )

  it.effect("a first window too large is narrowed: the newest lines that fit", () =>
    Effect.gen(function* () {
      const messages = Array.from({ length: 1000 }, (_, i) => line(i % 2 === 0 ? "stdout" : "stderr", i + 1))
      const engine = yield* fakeEngine(logsOf(messages))
      const docker = yield* serviceOver(engine.url, { maxLogReadBytes: cap })
      const read = yield* docker.logs(container.name, { limit: 1000 })
      assert.deepStrictEqual(tailsAsked(engine.requests), [1001, 500, 250, 125])
      // The window's first message may be a piece of a line: its line is left out.
      assert.deepStrictEqual(
        read.map((l) => l.line),
        messages.slice(-124).map((m) => m.text)
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a last message larger than the bound is an error, not an empty log", () =>
    Effect.gen(function* () {
      const engine = yield* fakeEngine(logsOf([line("stdout", 1), { stream: "stdout", text: "x".repeat(cap) }]))
      const docker = yield* serviceOver(engine.url, { maxLogReadBytes: cap })
      const error = yield* Effect.flip(docker.logs(container.name, { limit: 1 }))
      assert.instanceOf(error, DockerFailed)
      assert.strictEqual(
        error.message,
        `Docker host "fake" answered 200: its last log message is larger than the ${cap} bytes a log read holds`
      )
      assert.deepStrictEqual(tailsAsked(engine.requests), [2, 1])
    }).pipe(Effect.scoped)
  )
})

describe("a log read of the real service, past a line the engine split", () => {
  // dockerd cuts a line at 16 KiB and its `tail` counts the pieces: one line of three messages, then one of one.
  const messages: ReadonlyArray<Message> = [
    ...["one", "two", "three"].map((text) => ({ stream: "stdout" as const, text })),
    { stream: "stdout", text: "A".repeat(20), piece: true },
    { stream: "stdout", text: "B".repeat(20), piece: true },
    { stream: "stdout", text: "C".repeat(5) },
    { stream: "stdout", text: "short" }
  ]
  const long = `${"A".repeat(20)}${"B".repeat(20)}${"C".repeat(5)}`

  const read = (limit: number) =>
    Effect.gen(function* () {
      const engine = yield* fakeEngine(logsOf(messages))
      const docker = yield* serviceOver(engine.url)
      const lines = yield* docker.logs(container.name, { limit })
      return { lines: lines.map((l) => l.line), tails: tailsAsked(engine.requests) }
    }).pipe(Effect.scoped)

  it.effect("gives no piece of a line as a line: the window's first line is left out unless the log starts there", () =>
    Effect.gen(function* () {
      // 3 messages hold only `short` once the first line is left out: wider, to the log's start.
      assert.deepStrictEqual(yield* read(2), { lines: [long, "short"], tails: [3, 12] })
      // The last 2 messages are a piece and `short`: the line the piece is in is left out.
      assert.deepStrictEqual(yield* read(1), { lines: ["short"], tails: [2] })
    })
  )

  it.effect("gives `limit` lines when the log has them, though the split line makes fewer lines than messages", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* read(3), { lines: ["three", long, "short"], tails: [4, 16] })
    })
  )
})

describe("a bounded body", () => {
  it.effect("stops reading at the bound: the rest of the body is never pulled", () =>
    Effect.gen(function* () {
      let pulled = 0
      const body = Readable.from(
        (function* () {
          for (let i = 0; i < 10_000; i++) {
            pulled++
            yield Buffer.alloc(1024)
          }
        })(),
        { objectMode: false }
      )
      const read = yield* readBoundedBody("fake", cap)(body)
      assert.isTrue(Option.isNone(read), "a body past the bound is not held")
      assert.isTrue(body.destroyed)
      // The bound, and what the stream reads ahead of its reader (16 KiB), not the 10 MiB behind it.
      assert.isBelow(pulled, 64, `${pulled} chunks of 1 KiB pulled`)
    })
  )

  it.effect("holds a body within the bound whole", () =>
    Effect.gen(function* () {
      const read = yield* readBoundedBody("fake", cap)(Readable.from([Buffer.alloc(cap / 2), Buffer.alloc(cap / 2)]))
      assert.strictEqual(Option.getOrThrow(read).length, cap)
    })
  )
})
