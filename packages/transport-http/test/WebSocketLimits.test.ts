import * as http from "node:http"
import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { HealthEvents } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import { WebSocket } from "ws"
import { waitFor } from "../../../test/support/WaitFor.js"
import { openWs, rawStatusLine, request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

/** Opens a raw upgrade with the given headers and returns the HTTP status the server answered with. */
const upgradeStatus = (url: string, headers: Record<string, string>) =>
  Effect.promise(
    () =>
      new Promise<{ status: number; body: string; retryAfter: string | undefined }>((resolve, reject) => {
        const target = new URL(url)
        const req = http.request({
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          // A fresh connection per attempt: a refused upgrade's connection is not reused.
          agent: false,
          headers: {
            connection: "Upgrade",
            upgrade: "websocket",
            "sec-websocket-version": "13",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            ...headers
          }
        })
        req.on("upgrade", (res, socket) => {
          socket.destroy()
          resolve({ status: res.statusCode ?? 101, body: "", retryAfter: undefined })
        })
        req.on("response", (res) => {
          let body = ""
          res.on("data", (chunk) => (body += chunk))
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body, retryAfter: res.headers["retry-after"] as string | undefined })
          )
        })
        req.on("error", reject)
        req.end()
      })
  )

/** Polls the server's open stream count until it is `n`, failing after a deadline. */
const streamsDropTo = (h: { readonly openStreams: Effect.Effect<number> }, n: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 600; i++) {
      if ((yield* h.openStreams) === n) return
      yield* Effect.sleep("50 millis")
    }
    return yield* Effect.die(new Error(`the server still has ${yield* h.openStreams} streams open`))
  })

/** Polls `url` until it answers `status` (the server sees the held connections a moment after they open). */
const eventuallyStatus = (url: string, status: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 100; i++) {
      const reply = yield* request(url)
      if (reply.status === status) return reply
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`${url} never answered ${status}`))
  })

/** A request held in flight until the scope closes: its body is announced but never finished. */
const heldRequest = (baseUrl: string, apiKey: string, extraHeaders = "") =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<net.Socket>((resolve) => {
          const url = new URL(baseUrl)
          const socket = net.connect(Number(url.port), url.hostname, () => {
            socket.write(
              `POST /api/v1/route/validate HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${apiKey}\r\n` +
                `${extraHeaders}Content-Type: text/plain\r\nContent-Length: 1000\r\n\r\napp:\n`
            )
            resolve(socket)
          })
          socket.on("error", () => {})
        })
    ),
    (socket) => Effect.sync(() => socket.destroy())
  )

const manyRoutes = Array.from({ length: 200 }, (_, i) => `app-${i}:\n  port: ${1000 + i}\n`).join("")

describe("WebSocket origin and Host checks", () => {
  it.live("compares scheme, host and port of Origin, and accepts only known host names (DNS rebinding)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const port = new URL(h.origin).port
        const auth = { authorization: `Bearer ${h.apiKey}` }
        const url = `${h.wsUrl}/health`
        const same = yield* upgradeStatus(url, {
          ...auth,
          host: `127.0.0.1:${port}`,
          origin: `http://127.0.0.1:${port}`
        })
        assert.strictEqual(same.status, 101)
        const localhost = yield* upgradeStatus(url, {
          ...auth,
          host: `localhost:${port}`,
          origin: `http://localhost:${port}`
        })
        assert.strictEqual(localhost.status, 101)
        const refused: ReadonlyArray<Record<string, string>> = [
          { host: `127.0.0.1:${port}`, origin: `https://127.0.0.1:${port}` },
          { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${Number(port) + 1}` },
          { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
          { host: `evil.example:${port}` },
          { host: `127.0.0.1:${port}`, origin: "null" }
        ]
        for (const headers of refused) {
          const reply = yield* upgradeStatus(url, { ...auth, ...headers })
          assert.strictEqual(reply.status, 403, JSON.stringify(headers))
          assert.strictEqual(JSON.parse(reply.body).error.code, "permission_denied", JSON.stringify(headers))
        }
      })
    )
  )
})

describe("WebSocket handshakes that do something first", () => {
  it.live("a cross-origin handshake is refused before the endpoint prepares anything (a renewal is not started)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const port = new URL(h.origin).port
        const auth = { authorization: `Bearer ${h.apiKey}` }
        // Same origin: the endpoint prepares the renewal, which fails here (no certificate is configured).
        const same = yield* upgradeStatus(`${h.wsUrl}/cert/renew`, { ...auth, origin: `http://127.0.0.1:${port}` })
        assert.notStrictEqual(same.status, 403, same.body)
        // Cross origin: refused as such, before the endpoint is asked to prepare anything.
        const cross = yield* upgradeStatus(`${h.wsUrl}/cert/renew`, { ...auth, origin: "http://evil.example" })
        assert.strictEqual(cross.status, 403, cross.body)
        assert.strictEqual(JSON.parse(cross.body).error.code, "permission_denied")
        assert.match(JSON.parse(cross.body).error.message, /cross-origin WebSocket/)
      })
    )
  )

  it.live("a handshake over the stream cap gets its 429 before the endpoint prepares anything", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ policy: { maxConnectionsPerClient: 1, maxConnections: 10 } })
        const auth = { authorization: `Bearer ${h.apiKey}` }
        // With a place free, the endpoint prepares the renewal, which fails here (no certificate is configured).
        const prepared = yield* upgradeStatus(`${h.wsUrl}/cert/renew`, auth)
        assert.notStrictEqual(prepared.status, 429, prepared.body)
        yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey })
        // Without one: refused for the cap, the renewal never asked for.
        const over = yield* upgradeStatus(`${h.wsUrl}/cert/renew`, auth)
        assert.strictEqual(over.status, 429, over.body)
        assert.match(JSON.parse(over.body).error.message, /too many WebSocket streams from 127\.0\.0\.1 \(limit 1\)/)
      })
    )
  )
})

describe("WebSocket and request caps", () => {
  it.live("refuses WebSocket streams over the per-client cap with 429 and Retry-After, and frees the place", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ policy: { maxConnectionsPerClient: 2, maxConnections: 10 } })
        const auth = { authorization: `Bearer ${h.apiKey}` }
        const first = yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey })
        yield* openWs(`${h.wsUrl}/events`, { key: h.apiKey })
        const over = yield* upgradeStatus(`${h.wsUrl}/health`, auth)
        assert.strictEqual(over.status, 429)
        assert.strictEqual(JSON.parse(over.body).error.code, "rate_limited")
        assert.match(JSON.parse(over.body).error.message, /too many WebSocket streams from 127\.0\.0\.1 \(limit 2\)/)
        assert.strictEqual(over.retryAfter, "1")
        // Plain requests are not streams.
        assert.strictEqual((yield* request(`${h.baseUrl}/health`, { key: h.apiKey })).status, 200)
        first.socket.close()
        yield* Effect.promise(() => first.closed)
        yield* streamsDropTo(h, 1)
        assert.strictEqual((yield* upgradeStatus(`${h.wsUrl}/health`, auth)).status, 101)
      })
    )
  )

  it.live("refuses WebSocket streams over the server's total cap with 429", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ policy: { maxConnectionsPerClient: 10, maxConnections: 2 } })
        yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey })
        yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey })
        const over = yield* upgradeStatus(`${h.wsUrl}/health`, { authorization: `Bearer ${h.apiKey}` })
        assert.strictEqual(over.status, 429)
        assert.match(JSON.parse(over.body).error.message, /too many WebSocket streams on this server \(limit 2\)/)
      })
    )
  )

  it.live("counts an IPv6 /64 as one client for both caps: its other addresses do not get more", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // The harness's loopback peer is a trusted proxy, so each request says which client it is for.
        const h = yield* startHarness({
          maxConcurrentRequestsPerClient: 2,
          policy: { maxConnectionsPerClient: 2, maxConnections: 10 },
          trustedProxy: (address) => address === "127.0.0.1"
        })
        const from = (address: string) => ({ authorization: `Bearer ${h.apiKey}`, "x-forwarded-for": address })
        // Two streams from two addresses of one /64 fill its place; a third address of it gets 429.
        for (const address of ["2001:db8:0:7::1", "2001:db8:0:7::2"]) {
          yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey, headers: { "x-forwarded-for": address } })
        }
        const third = yield* upgradeStatus(`${h.wsUrl}/health`, from("2001:db8:0:7::3"))
        assert.strictEqual(third.status, 429)
        assert.match(
          JSON.parse(third.body).error.message,
          /too many WebSocket streams from 2001:db8:0:7::\/64 \(limit 2\)/
        )
        assert.strictEqual((yield* upgradeStatus(`${h.wsUrl}/health`, from("2001:db8:0:8::1"))).status, 101)
        const held = yield* Effect.forEach(["2001:db8:0:7::1", "2001:db8:0:7:ffff::2"], (address) =>
          heldRequest(h.baseUrl, h.apiKey, `X-Forwarded-For: ${address}\r\n`)
        )
        const limited = yield* Effect.gen(function* () {
          for (let i = 0; i < 100; i++) {
            const reply = yield* request(`${h.baseUrl}/version`, { headers: { "x-forwarded-for": "2001:db8:0:7::3" } })
            if (reply.status === 429) return reply
            yield* Effect.sleep("20 millis")
          }
          return yield* Effect.die(new Error("a third address of the /64 was never limited"))
        })
        assert.match(limited.json.error.message, /too many concurrent requests from 2001:db8:0:7::\/64 \(limit 2\)/)
        const neighbour = yield* request(`${h.baseUrl}/version`, { headers: { "x-forwarded-for": "2001:db8:0:8::1" } })
        assert.strictEqual(neighbour.status, 200, "the next /64 is another client")
        for (const socket of held) socket.destroy()
      })
    )
  )

  it.live("refuses concurrent requests of one client over the cap with 429, and serves it again after", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ maxConcurrentRequestsPerClient: 3 })
        const url = new URL(h.baseUrl)
        // Three requests in flight.
        const held = yield* Effect.forEach(Array.from({ length: 3 }), () => heldRequest(h.baseUrl, h.apiKey))
        const limited = yield* eventuallyStatus(`${h.baseUrl}/version`, 429)
        assert.strictEqual(limited.json.error.code, "rate_limited")
        assert.strictEqual(limited.headers.get("retry-after"), "1")
        // An `Upgrade` header on a request that is not a WebSocket handshake does not take it out of the cap.
        const notHandshake = yield* rawStatusLine(
          url,
          `GET /api/v1/version HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\n\r\n`
        )
        assert.strictEqual(notHandshake, "HTTP/1.1 429 Too Many Requests")
        for (const socket of held) socket.destroy()
        yield* eventuallyStatus(`${h.baseUrl}/version`, 200)
      })
    )
  )
})

describe("WebSocket clients that misbehave", () => {
  const tightPolicy = {
    drainAboveBytes: 16 * 1024,
    maxBufferedBytes: 64 * 1024,
    drainTimeoutMs: 300,
    closeGraceMs: 60_000
  }

  it.live(
    "a validate client that never reads is dropped with 1008 after the grace",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* startHarness({ policy: tightPolicy })
          const ws = yield* openWs(`${h.wsUrl}/route/validate`, { key: h.apiKey })
          ws.socket.pause()
          // Keep sending documents without reading a single answer.
          const sender = setInterval(() => ws.socket.readyState === WebSocket.OPEN && ws.send(manyRoutes), 5)
          yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(sender)))
          // The server gives up on this client: its stream ends (the connection, and its place, stay for the grace)...
          yield* waitFor(h.closingStreams, (n) => n === 1, "the server to drop the client")
          clearInterval(sender)
          // ...and when the client finally reads, it finds out why.
          ws.socket.resume()
          const closed = yield* Effect.promise(() => ws.closed)
          assert.deepStrictEqual(closed, { code: 1008, reason: "client too slow" })
        })
      ),
    60_000
  )

  it.live(
    "an events client too slow to keep up learns why (1008 and the reason), even seconds later",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const h = yield* startHarness({ policy: tightPolicy })
          const ws = yield* openWs(`${h.wsUrl}/events`, { key: h.apiKey })
          ws.socket.pause()
          const payload = "x".repeat(8 * 1024)
          let published = 0
          // Publish until the server has dropped the client (its stream ends), at a pace the event bus's buffer
          // absorbs: it is the transport that finds the client does not read.
          while ((yield* h.closingStreams) === 0 && published < 20_000) {
            yield* Effect.sleep("3 millis")
            yield* h.events.publish(
              HealthEvents.down({
                alias: "slow",
                status: "unhealthy",
                previous: "healthy",
                latency_ms: published,
                error: payload
              })
            )
            published++
          }
          yield* waitFor(h.closingStreams, (n) => n === 1, "the server to drop the client")
          // The scenario, not a synchronisation: the client comes back to read only seconds later (a background
          // tab, a laptop waking up) — longer than the server used to keep the connection after dropping it.
          yield* Effect.sleep("3 seconds")
          ws.socket.resume()
          const closed = yield* Effect.promise(() => ws.closed)
          assert.deepStrictEqual(closed, { code: 1008, reason: "client too slow" })
          assert.isBelow(ws.frames.length, published)
        })
      ),
    60_000
  )

  it.live("a binary frame to a text-only stream ends it with 1003", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (const path of ["route/validate", "events"]) {
          const ws = yield* openWs(`${h.wsUrl}/${path}`, { key: h.apiKey })
          ws.socket.send(Buffer.from([1, 2, 3]), { binary: true })
          const closed = yield* Effect.promise(() => ws.closed)
          assert.strictEqual(closed.code, 1003, path)
          assert.match(closed.reason, /text/, path)
        }
      })
    )
  )
})
