import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { hasMalformedEscape } from "../src/middleware/EndpointPaths.js"
import { startHarness } from "./support/TransportHarness.js"

/** Sends `raw` (a whole request, `Connection: close`) and returns the status code, headers and body of the answer. */
const rawExchange = (url: URL, raw: string) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; head: string; body: string }>((resolve, reject) => {
        const socket = net.connect(Number(url.port), url.hostname, () => socket.write(raw))
        let received = ""
        socket.on("data", (chunk) => (received += chunk.toString("utf8")))
        socket.on("end", () => {
          const split = received.indexOf("\r\n\r\n")
          const head = received.slice(0, split)
          resolve({ status: Number(head.split(" ")[1]), head, body: received.slice(split + 4) })
        })
        socket.on("error", reject)
      })
  )

describe("percent-escapes that do not decode", () => {
  it("are told from the ones that do", () => {
    for (const path of ["/api/v1/route/%ZZ", "/api/v1/route/%E0%A4%A", "/api/v1/route/%E0%A4", "/api/v1/x/%"]) {
      assert.isTrue(hasMalformedEscape(path), path)
    }
    for (const path of ["/api/v1/route/web", "/api/v1/route/%E0%A4%A4", "/api/v1/route/a%2Fb", "/api/v1/route/%25"]) {
      assert.isFalse(hasMalformedEscape(path), path)
    }
  })
})

describe("a path the router cannot match is never a 405 naming the method used", () => {
  it.live("answers a path with malformed percent-encoding with 400 invalid_argument saying so", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const url = new URL(h.baseUrl)
        const head = `Host: ${url.host}\r\nAuthorization: Bearer ${h.apiKey}\r\nConnection: close\r\n\r\n`
        for (const [method, path] of [
          ["GET", "/api/v1/route/%E0%A4%A"],
          ["GET", "/api/v1/auth/requests/%ZZ"],
          ["HEAD", "/api/v1/route/%ZZ"],
          ["DELETE", "/api/v1/route/%ZZ"],
          ["GET", "/api/v1/nothing/%ZZ"]
        ] as const) {
          const reply = yield* rawExchange(url, `${method} ${path} HTTP/1.1\r\n${head}`)
          assert.strictEqual(reply.status, 400, `${method} ${path}: ${reply.head}`)
          if (method === "HEAD") continue
          const { error } = JSON.parse(reply.body)
          assert.strictEqual(error.code, "invalid_argument")
          assert.strictEqual(error.message, `invalid path: malformed percent-encoding in ${path}`)
        }
      })
    )
  )

  it.live("answers 405 only for a method the path does not take", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const url = new URL(h.baseUrl)
        const head = `Host: ${url.host}\r\nAuthorization: Bearer ${h.apiKey}\r\nConnection: close\r\n\r\n`
        // The router reads `;` as the start of a query: the alias is left empty, and no endpoint matches.
        const unroutable = yield* rawExchange(url, `GET /api/v1/route/;x HTTP/1.1\r\n${head}`)
        assert.strictEqual(unroutable.status, 400, unroutable.head)
        assert.deepStrictEqual(JSON.parse(unroutable.body).error, {
          code: "invalid_argument",
          message: "invalid path: /api/v1/route/;x"
        })
        const other = yield* rawExchange(url, `DELETE /api/v1/route/;x HTTP/1.1\r\n${head}`)
        assert.strictEqual(other.status, 405, other.head)
        assert.match(other.head, /\r\nallow: GET, HEAD/i)
      })
    )
  )
})
