import * as net from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { ConfigEvents, HealthEvents } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import { labelOf, testEvent } from "../../../test/support/TestEvents.js"
import { openWs, request, sendYaml } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

const healthy = (latency: number) => ({
  status: "healthy" as const,
  latency_ms: latency,
  uptime_s: 1,
  last_check: "2026-01-01T00:00:00.000Z"
})

describe("GET /health", () => {
  it.live("answers a plain GET with the HealthMap", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "a.yml": "app:\n  port: 8001\n" }, health: { app: healthy(4) } })
        const reply = yield* request(`${h.baseUrl}/health`, { key: h.apiKey })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.json, { app: healthy(4) })
      })
    )
  )

  it.live("streams the map, then a frame only when a status changes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "a.yml": "app:\n  port: 8001\n" }, health: { app: healthy(4) } })
        const ws = yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey })
        assert.deepStrictEqual(JSON.parse(yield* ws.next()), { app: healthy(4) })
        // A latency-only change is not worth a frame...
        yield* h.health.set({ app: healthy(9) })
        // ...a status change is; it carries the current values.
        yield* h.health.set({ app: { ...healthy(12), status: "unhealthy" } })
        const frame = JSON.parse(yield* ws.next())
        assert.strictEqual(frame.app.status, "unhealthy")
        assert.strictEqual(frame.app.latency_ms, 12)
        assert.strictEqual(ws.frames.length, 2)
      })
    )
  )

  it.live("checks auth and origin before the upgrade (401 / 403 with an error body)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const unauthenticated = yield* Effect.flip(openWs(`${h.wsUrl}/health`))
        assert.strictEqual(unauthenticated.status, 401)
        assert.strictEqual(JSON.parse(unauthenticated.body).error.code, "unauthenticated")
        const crossOrigin = yield* Effect.flip(
          openWs(`${h.wsUrl}/health`, { key: h.apiKey, headers: { origin: "https://evil.example" } })
        )
        assert.strictEqual(crossOrigin.status, 403)
        assert.strictEqual(JSON.parse(crossOrigin.body).error.code, "permission_denied")
        const sameOrigin = yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey, headers: { origin: h.origin } })
        assert.deepStrictEqual(JSON.parse(yield* sameOrigin.next()), {})
      })
    )
  )
})

describe("GET /events", () => {
  it.live("lists history newest last, with since, limit and category", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const published = []
        for (let i = 0; i < 5; i++) {
          published.push(yield* h.events.publish(testEvent(`n${i}`, i % 2 === 0 ? "config" : "health")))
        }
        const all = yield* request(`${h.baseUrl}/events`, { key: h.apiKey })
        assert.deepStrictEqual(all.json.map(labelOf), ["n0", "n1", "n2", "n3", "n4"])
        const limited = yield* request(`${h.baseUrl}/events?limit=2`, { key: h.apiKey })
        assert.deepStrictEqual(limited.json.map(labelOf), ["n3", "n4"])
        const since = yield* request(`${h.baseUrl}/events?since=${published[2]!.id}`, { key: h.apiKey })
        assert.deepStrictEqual(since.json.map(labelOf), ["n3", "n4"])
        const category = yield* request(`${h.baseUrl}/events?category=config`, { key: h.apiKey })
        assert.deepStrictEqual(category.json.map(labelOf), ["n0", "n2", "n4"])
      })
    )
  )

  it.live("rejects limit=0, limit=1001, a malformed since and unknown parameters with 400", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (const query of ["limit=0", "limit=1001", "limit=abc", "since=not-an-id", "categry=x"]) {
          const reply = yield* request(`${h.baseUrl}/events?${query}`, { key: h.apiKey })
          assert.strictEqual(reply.status, 400, query)
          assert.strictEqual(reply.json.error.code, "invalid_argument", query)
          assert.strictEqual(reply.json.error.details[0].path[0], "query", query)
        }
        const ws = yield* Effect.flip(openWs(`${h.wsUrl}/events?limit=0`, { key: h.apiKey }))
        assert.strictEqual(ws.status, 400)
      })
    )
  )

  it.live("takes limit only as decimal digits, and since in either case", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const first = yield* h.events.publish(testEvent("first"))
        yield* h.events.publish(testEvent("second"))
        for (const limit of ["1e3", "+5", "5.0", " 5", "0x10", "-1", "5%20", "1000000000000000000000"]) {
          const reply = yield* request(`${h.baseUrl}/events?limit=${limit}`, { key: h.apiKey })
          assert.strictEqual(reply.status, 400, `limit=${limit}`)
          assert.deepStrictEqual(reply.json.error.details[0].path, ["query", "limit"], limit)
        }
        const exact = yield* request(`${h.baseUrl}/events?limit=1`, { key: h.apiKey })
        assert.deepStrictEqual(exact.json.map(labelOf), ["second"])
        const upper = yield* request(`${h.baseUrl}/events?since=${first.id.toUpperCase()}`, { key: h.apiKey })
        assert.strictEqual(upper.status, 200)
        assert.deepStrictEqual(upper.json.map(labelOf), ["second"])
        const ws = yield* openWs(`${h.wsUrl}/events?since=${first.id.toUpperCase()}`, { key: h.apiKey })
        assert.strictEqual(labelOf(JSON.parse(yield* ws.next())), "second")
      })
    )
  )

  it.live("streams the matching history, then live events", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        yield* h.events.publish(testEvent("before", "config"))
        yield* h.events.publish(testEvent("ignored", "health"))
        const ws = yield* openWs(`${h.wsUrl}/events?category=config`, { key: h.apiKey })
        assert.strictEqual(labelOf(JSON.parse(yield* ws.next())), "before")
        yield* h.events.publish(testEvent("ignored", "health"))
        const after = ConfigEvents.rejected({ source: "routes", issues: [{ path: ["x"], message: "after" }] })
        yield* h.events.publish(after)
        const live = JSON.parse(yield* ws.next())
        assert.deepStrictEqual([live.action, live.level, live.data], ["error", "error", after.data])
      })
    )
  )

  it.live("drops a client that never reads, and other clients are unaffected", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({
          policy: { drainAboveBytes: 16 * 1024, maxBufferedBytes: 64 * 1024, drainTimeoutMs: 500 }
        })
        // A raw client that completes the handshake, then never reads again.
        const url = new URL(`${h.wsUrl}/events`)
        const stalled = net.connect(Number(url.port), "127.0.0.1")
        const stalledClosed = new Promise<void>((resolve) => stalled.on("close", () => resolve()))
        stalled.on("error", () => {})
        yield* Effect.promise(
          () =>
            new Promise<void>((resolve) => {
              stalled.write(
                `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
                  `Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n` +
                  `Authorization: Bearer ${h.apiKey}\r\n\r\n`
              )
              stalled.once("data", (head) => {
                assert.match(head.toString(), /^HTTP\/1\.1 101/)
                stalled.pause()
                resolve()
              })
            })
        )
        const reader = yield* openWs(`${h.wsUrl}/events`, { key: h.apiKey })
        // ~40 MB: far more than loopback socket buffers can hold for the stalled client.
        const payload = "x".repeat(8 * 1024)
        const total = 5000
        for (let published = 0; published < total; published++) {
          yield* h.events.publish(
            HealthEvents.down({
              alias: "bulk",
              status: "unhealthy",
              previous: "healthy",
              latency_ms: published,
              error: payload
            })
          )
          // Publish at the pace of the reading client (a real event rate is far lower): it must keep receiving
          // everything while the stalled one fills its buffers and gets dropped.
          if (published % 100 === 99) yield* reader.until((e) => e.data.latency_ms === published)
        }
        // The reading client got every event, in order, while the other one was being dropped.
        assert.deepStrictEqual(
          reader.frames.map((f) => JSON.parse(f).data.latency_ms),
          Array.from({ length: total }, (_, i) => i)
        )
        // The stalled client's connection was closed by the server: reading what is left ends in EOF well before
        // all 40 MB arrive.
        let received = 0
        stalled.on("data", (chunk: Buffer) => (received += chunk.length))
        stalled.resume()
        yield* Effect.promise(() => stalledClosed).pipe(Effect.timeout("10 seconds"))
        assert.isBelow(received, total * payload.length)
        const after = yield* request(`${h.baseUrl}/version`)
        assert.strictEqual(after.status, 200)
      })
    )
  )
})

describe("WebSocket /route/validate", () => {
  it.live("answers each YAML document with one frame per route and a done frame", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const ws = yield* openWs(`${h.wsUrl}/route/validate`, { key: h.apiKey })
        ws.send("good:\n  port: 8080\nbad:\n  port: 99999\n")
        const good = JSON.parse(yield* ws.next())
        const bad = JSON.parse(yield* ws.next())
        const done = JSON.parse(yield* ws.next())
        assert.deepStrictEqual([good.alias, good.valid, good.route.port.target], ["good", true, 8080])
        assert.deepStrictEqual([bad.alias, bad.valid], ["bad", false])
        assert.deepStrictEqual(bad.errors[0].path, ["bad", "port"])
        assert.deepStrictEqual(done, { done: true, valid: 1, invalid: 1 })
        ws.send("x: [\n")
        const syntax = JSON.parse(yield* ws.next())
        assert.strictEqual(syntax.done, true)
        assert.isNumber(syntax.errors[0].line)
      })
    )
  )

  it.live("answers a plain GET with 426 upgrade_required", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const reply = yield* request(`${h.baseUrl}/route/validate`, { key: h.apiKey })
        assert.strictEqual(reply.status, 426)
        assert.strictEqual(reply.json.error.code, "upgrade_required")
      })
    )
  )

  it.live("a binary frame is refused with 1003 without being validated or answered", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (let attempt = 0; attempt < 5; attempt++) {
          const ws = yield* openWs(`${h.wsUrl}/route/validate`, { key: h.apiKey })
          // Valid YAML: were it validated, it would be answered with a route frame and a done frame.
          ws.socket.send(Buffer.from("good:\n  port: 8080\n"), { binary: true })
          const closed = yield* Effect.promise(() => ws.closed)
          assert.deepStrictEqual(closed, { code: 1003, reason: "this stream takes text frames only" })
          assert.deepStrictEqual(ws.frames, [], "nothing answered")
        }
      })
    )
  )

  it.live("closes with 1009 and says why when a message exceeds 1 MiB", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        const ws = yield* openWs(`${h.wsUrl}/route/validate`, { key: h.apiKey })
        ws.send(`# ${"z".repeat(1024 * 1024 + 10)}`)
        const closed = yield* Effect.promise(() => ws.closed)
        assert.deepStrictEqual(closed, { code: 1009, reason: "message too big: a message may be at most 1 MiB" })
        const after = yield* request(`${h.baseUrl}/version`)
        assert.strictEqual(after.status, 200)
      })
    )
  )
})

describe("WebSocket /route/list", () => {
  it.live("sends the route list, then again when a route file changes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "a.yml": "one:\n  port: 8001\n" } })
        const ws = yield* openWs(`${h.wsUrl}/route/list`, { key: h.apiKey })
        assert.deepStrictEqual(
          JSON.parse(yield* ws.next()).map((r: any) => r.alias),
          ["one"]
        )
        const written = yield* sendYaml(
          `${h.baseUrl}/file/content?type=routes&filename=b.yml`,
          h.apiKey,
          "two:\n  port: 8002\n",
          { method: "PUT" }
        )
        assert.strictEqual(written.status, 200)
        const next = yield* ws.until((list) => list.length === 2)
        assert.deepStrictEqual(
          next.map((r: any) => r.alias),
          ["one", "two"]
        )
        // One change, one frame: no frame with the unchanged list came first.
        assert.strictEqual(ws.frames.length, 2, ws.frames.join("\n"))
      })
    )
  )

  it.live("sends the list again when a route's health status changes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles: { "a.yml": "one:\n  port: 8001\n" }, health: { one: healthy(1) } })
        const ws = yield* openWs(`${h.wsUrl}/route/list`, { key: h.apiKey })
        assert.strictEqual(JSON.parse(yield* ws.next())[0].health.status, "healthy")
        yield* h.health.set({ one: { ...healthy(2), status: "unhealthy" } })
        const next = yield* ws.until((list) => list[0].health.status === "unhealthy")
        assert.strictEqual(next[0].alias, "one")
      })
    )
  )
})
