import { assert, describe, it } from "@effect/vitest"
import { maxFileBytes } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { rawStatusLine, request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

const MiB = 1024 * 1024

// A valid route file of about `bytes` bytes: one route, then comment lines (an operator's notes, a generated file).
const largeRouteFile = (bytes: number) => {
  const head = "app:\n  port: 8080\n"
  const line = `# ${"x".repeat(1021)}\n`
  return head + line.repeat(Math.floor((bytes - head.length) / line.length))
}

// A body sent chunked (no Content-Length), `chunks` pieces of `size` bytes of YAML comment.
const chunked = (chunks: number, size: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < chunks; i++) controller.enqueue(new TextEncoder().encode(`#${"y".repeat(size - 2)}\n`))
      controller.close()
    }
  })

const send = (url: string, key: string, method: string, body: ReadableStream<Uint8Array>) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/yaml" },
      body,
      duplex: "half"
    } as RequestInit)
    return { status: response.status, json: (await response.json()) as any }
  })

describe("the body limit of a file write", () => {
  it.live("a route file over the server's 1 MiB body limit is written and read back whole", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ maxBodyBytes: MiB })
        const url = `${h.baseUrl}/file/content?type=routes&filename=large.yml`
        const text = largeRouteFile(3 * MiB)
        const written = yield* request(url, {
          method: "PUT",
          key: h.apiKey,
          body: text,
          contentType: "application/yaml"
        })
        assert.strictEqual(written.status, 200, written.text.slice(0, 500))
        assert.strictEqual(written.json.bytes, text.length)
        const read = yield* request(url, { key: h.apiKey })
        assert.strictEqual(read.status, 200)
        assert.strictEqual(read.text, text)
        assert.strictEqual(read.headers.get("etag"), written.headers.get("etag"))
        // Sent chunked, as large a body is read too: its limit is the file's, not the server's.
        const again = yield* send(url, h.apiKey, "PUT", chunked(3, MiB))
        assert.strictEqual(again.status, 200, JSON.stringify(again.json))
        assert.strictEqual(again.json.bytes, 3 * MiB)
      })
    )
  )

  it.live(
    "a body over the largest file is refused with 413: by its length before it is read, or once chunked past",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* startHarness({ maxBodyBytes: MiB })
          const url = `${h.baseUrl}/file/content?type=routes&filename=large.yml`
          const over = yield* request(url, {
            method: "PUT",
            key: h.apiKey,
            body: largeRouteFile(maxFileBytes + 1024).slice(0, maxFileBytes + 1),
            contentType: "application/yaml"
          })
          assert.strictEqual(over.status, 413)
          assert.strictEqual(over.json.error.code, "payload_too_large")
          assert.strictEqual(over.json.error.message, `request body exceeds the limit of ${maxFileBytes} bytes`)
          // Only the declared length is sent: the answer comes without a byte of the body.
          const declared = yield* rawStatusLine(
            new URL(h.baseUrl),
            `PUT /api/v1/file/content?type=routes&filename=large.yml HTTP/1.1\r\nHost: x\r\n` +
              `Authorization: Bearer ${h.apiKey}\r\nContent-Type: application/yaml\r\n` +
              `Content-Length: ${maxFileBytes + 1}\r\n\r\n`
          )
          assert.strictEqual(declared, "HTTP/1.1 413 Payload Too Large")
          const grown = yield* send(url, h.apiKey, "PUT", chunked(9, MiB))
          assert.strictEqual(grown.status, 413)
          assert.strictEqual(grown.json.error.message, `request body exceeds the limit of ${maxFileBytes} bytes`)
        })
      )
  )

  it.live("every other endpoint keeps the server's 1 MiB limit, by length and chunked", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ maxBodyBytes: MiB })
        const validate = yield* request(`${h.baseUrl}/file/validate?type=routes`, {
          method: "POST",
          key: h.apiKey,
          body: largeRouteFile(3 * MiB),
          contentType: "application/yaml"
        })
        assert.strictEqual(validate.status, 413)
        assert.strictEqual(validate.json.error.message, `request body exceeds the limit of ${MiB} bytes`)
        const routes = yield* send(`${h.baseUrl}/route/validate`, h.apiKey, "POST", chunked(3, MiB))
        assert.strictEqual(routes.status, 413)
        assert.strictEqual(routes.json.error.message, `request body exceeds the limit of ${MiB} bytes`)
      })
    )
  )

  it.live("a file write's body is read only once its caller is authenticated, and must still be UTF-8", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ maxBodyBytes: MiB })
        // Only the headers of a 3 MiB write, without credentials: refused without waiting for a byte of the body
        // (read before authentication, it held the request until the client sent all of it).
        const anonymous = yield* rawStatusLine(
          new URL(h.baseUrl),
          "PUT /api/v1/file/content?type=routes&filename=large.yml HTTP/1.1\r\nHost: x\r\n" +
            `Content-Type: application/yaml\r\nContent-Length: ${3 * MiB}\r\n\r\n`
        )
        assert.strictEqual(anonymous, "HTTP/1.1 401 Unauthorized")
        const latin1 = yield* Effect.promise(() =>
          fetch(`${h.baseUrl}/file/content?type=routes&filename=latin1.yml`, {
            method: "PUT",
            headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/yaml" },
            body: new Uint8Array([...new TextEncoder().encode("app:\n  port: 80\n# caf"), 0xe9, 0x0a])
          }).then(async (response) => ({ status: response.status, json: (await response.json()) as any }))
        )
        assert.strictEqual(latin1.status, 400)
        assert.strictEqual(latin1.json.error.message, "request body is not valid UTF-8: invalid byte 0xe9 at offset 21")
      })
    )
  )
})
