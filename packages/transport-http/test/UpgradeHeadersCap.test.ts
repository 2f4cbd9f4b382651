import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { isStreamEndpoint } from "../src/middleware/EndpointPaths.js"
import { rawStatusLine, request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

const handshakeHeaders =
  "Connection: Upgrade\r\nUpgrade: websocket\r\n" +
  "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"

/** A request held in flight until the scope closes: its body is announced but never finished. */
const heldRequest = (url: URL, apiKey: string) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(Number(url.port), url.hostname, () => {
            socket.write(
              `POST /api/v1/route/validate HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${apiKey}\r\n` +
                "Content-Type: text/plain\r\nContent-Length: 1000\r\n\r\napp:\n"
            )
            resolve(socket)
          })
          socket.on("error", () => {})
        })
    ),
    (socket) => Effect.sync(() => socket.destroy())
  )

/** Polls `url` until it answers `status` (the server sees held requests a moment after they are sent). */
const eventuallyStatus = (url: string, status: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 250; i++) {
      if ((yield* request(url)).status === status) return
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`${url} never answered ${status}`))
  })

describe("which handshakes are streams (and so out of the per-client request cap)", () => {
  it("the endpoints of the stream table, matched as the server's router matches", () => {
    for (const [method, url] of [
      ["GET", "/api/v1/health"],
      ["GET", "/api/v1/events?category=health"],
      ["GET", "/api/v1/route/validate"],
      ["GET", "/api/v1/docker/stats/web"],
      ["GET", "/api/v1/hypervisor/journalctl/pve1/101/nginx"],
      // The router ignores case and a trailing slash: so does the matcher.
      ["GET", "/API/v1/Health/"]
    ] as const) {
      assert.isTrue(isStreamEndpoint(method, url), `${method} ${url}`)
    }
    for (const [method, url] of [
      ["GET", "/api/v1/version"],
      ["GET", "/api/v1/apikeys"],
      ["POST", "/api/v1/route/validate"],
      ["GET", "/api/v1/route/web"],
      ["POST", "/api/v1/users"],
      ["GET", "/api/v1/nothing"],
      ["GET", "/login"]
    ] as const) {
      assert.isFalse(isStreamEndpoint(method, url), `${method} ${url}`)
    }
  })
})

describe("upgrade headers do not take a request out of the per-client request cap", () => {
  it.live(
    "a request with handshake headers to an endpoint that is no stream is counted; a stream handshake is not",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* startHarness({ maxConcurrentRequestsPerClient: 2 })
          const url = new URL(h.baseUrl)
          const head = `Host: ${url.host}\r\nAuthorization: Bearer ${h.apiKey}\r\n`
          yield* Effect.forEach([1, 2], () => heldRequest(url, h.apiKey))
          yield* eventuallyStatus(`${h.baseUrl}/version`, 429)
          // Node hands these to its upgrade handler, the app answers them as plain requests: still counted.
          for (const path of ["/api/v1/version", "/api/v1/apikeys"]) {
            const line = yield* rawStatusLine(url, `GET ${path} HTTP/1.1\r\n${head}${handshakeHeaders}\r\n`)
            assert.strictEqual(line, "HTTP/1.1 429 Too Many Requests", path)
          }
          // A handshake to a declared stream takes a stream place instead, whatever requests are in flight.
          const stream = yield* rawStatusLine(url, `GET /api/v1/health HTTP/1.1\r\n${head}${handshakeHeaders}\r\n`)
          assert.strictEqual(stream, "HTTP/1.1 101 Switching Protocols")
        })
      ),
    30_000
  )
})
