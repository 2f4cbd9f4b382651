import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { maxFileBytes } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { waitFor } from "../../../test/support/WaitFor.js"
import { rawStatusLine, request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// The bytes the writes in flight may hold together: the service's default, eight of the largest files.
const QUEUE_FILES = 8

// The head of a write of `filename` announcing a body of `length` bytes.
const writeHead = (apiKey: string, filename: string, length: number) =>
  `PUT /api/v1/file/content?type=routes&filename=${filename} HTTP/1.1\r\nHost: x\r\n` +
  `Authorization: Bearer ${apiKey}\r\nContent-Type: application/yaml\r\nContent-Length: ${length}\r\n\r\n`

// A client that announces a whole file and sends only its first bytes, then nothing: a slow upload. Closed with the
// test's scope, or earlier by the test (a client that leaves mid-body).
const slowUpload = (url: URL, apiKey: string, filename: string) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(Number(url.port), url.hostname, () => {
            socket.write(`${writeHead(apiKey, filename, maxFileBytes)}app:\n  port: 8080\n# `)
            resolve(socket)
          })
          socket.on("error", reject)
        })
    ),
    (socket) => Effect.sync(() => socket.destroy())
  )

// A valid route file of about `bytes` bytes: one route, then comment lines.
const largeRouteFile = (bytes: number) => {
  const head = "app:\n  port: 8080\n"
  const line = `# ${"x".repeat(1021)}\n`
  return head + line.repeat(Math.floor((bytes - head.length) / line.length))
}

describe("the bodies of file writes in flight", () => {
  it.live(
    "count in the write queue before they are read: past it a write is refused unread, and a client gone frees its share",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* startHarness()
          const url = new URL(h.baseUrl)
          const put = (filename: string, body: string) =>
            request(`${h.baseUrl}/file/content?type=routes&filename=${filename}`, {
              method: "PUT",
              key: h.apiKey,
              body,
              contentType: "application/yaml"
            })
          // Eight uploads of a whole file each, their bodies barely begun: they take the whole queue.
          const uploads = []
          for (let i = 0; i < QUEUE_FILES; i++) uploads.push(yield* slowUpload(url, h.apiKey, `slow-${i}.yml`))
          // Each counts once the server has its head; a small write is refused once all eight do.
          const refused = yield* waitFor(
            put("probe.yml", "probe:\n  port: 9000\n"),
            (reply) => reply.status === 429,
            "the slow uploads to fill the write queue"
          )
          assert.strictEqual(refused.json.error.code, "rate_limited")
          assert.strictEqual(
            refused.json.error.message,
            'routes file "probe.yml" was not written: other file writes are waiting; try again later'
          )
          // A write announcing a whole file is answered with only its head sent: its body is never waited for.
          const unread = yield* rawStatusLine(url, writeHead(h.apiKey, "next.yml", maxFileBytes)).pipe(
            Effect.timeoutOrElse({
              duration: "5 seconds",
              orElse: () => Effect.succeed("no answer within 5 s: the server waits for the body")
            })
          )
          assert.strictEqual(unread, "HTTP/1.1 429 Too Many Requests")

          // One client leaves mid-body: its share is free again, and a whole file fits in it.
          uploads[0]!.destroy()
          const file = largeRouteFile(maxFileBytes)
          const written = yield* waitFor(
            put("large.yml", file),
            (reply) => reply.status !== 429,
            "the share of the client that left to be freed"
          )
          assert.strictEqual(written.status, 200, written.text.slice(0, 500))
          assert.strictEqual(written.json.bytes, file.length)
          // The share of the write just made is free too: the queue holds the seven uploads still in flight.
          assert.strictEqual((yield* put("probe.yml", "probe:\n  port: 9000\n")).status, 200)

          // The uploads end (their clients leave): a queue of ordinary writes sent at once all land.
          for (const socket of uploads) socket.destroy()
          const names = Array.from({ length: 20 }, (_, i) => `queued-${i}.yml`)
          const replies = yield* Effect.forEach(names, (name, i) => put(name, `queued-${i}:\n  port: ${9100 + i}\n`), {
            concurrency: "unbounded"
          })
          assert.deepStrictEqual(
            replies.map((reply) => reply.status),
            names.map(() => 200),
            JSON.stringify(replies.find((reply) => reply.status !== 200)?.json)
          )
          const onDisk = fs.readdirSync(h.routesDir).sort()
          for (const name of names) assert.include(onDisk, name)
          // Nothing of the uploads that never finished was written, nor left behind.
          assert.isFalse(
            onDisk.some((name) => name.startsWith("slow-") || name.endsWith(".tmp")),
            onDisk.join(", ")
          )
          assert.isFalse(fs.existsSync(path.join(h.routesDir, "next.yml")))
        })
      ),
    60_000
  )
})
