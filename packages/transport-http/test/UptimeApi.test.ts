import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { waitFor } from "../../../test/support/WaitFor.js"
import { openWs, request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// The uptime service samples the health the test sets once a second on the live clock; the layer takes its first
// sample when it starts, so a page has a point for every route at once.

const healthy = { status: "healthy" as const, latency_ms: 4, uptime_s: 1, last_check: "2026-01-01T00:00:00.000Z" }
const routeFiles = { "a.yml": "web:\n  port: 8001\ndb:\n  port: 8002\nwebmail:\n  port: 8003\n" }

describe("GET /metrics/uptime", () => {
  it.live("a page of aggregates: aliases ascending, keyword, limit and offset", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles, health: { web: healthy } })
        const all = yield* request(`${h.baseUrl}/metrics/uptime?period=5m`, { key: h.apiKey })
        assert.strictEqual(all.status, 200, all.text)
        assert.strictEqual(all.json.total, 3)
        assert.deepStrictEqual(
          all.json.data.map((r: any) => [r.alias, r.is_excluded, r.current_status]),
          [
            ["db", false, "unknown"],
            ["web", false, "healthy"],
            ["webmail", false, "unknown"]
          ]
        )
        const web = all.json.data[1]
        assert.deepStrictEqual([web.uptime, web.downtime, web.idle, web.avg_latency_ms], [1, 0, 0, 4])
        assert.strictEqual(web.statuses[0].status, "healthy")
        assert.match(web.statuses[0].timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)

        const keyword = yield* request(`${h.baseUrl}/metrics/uptime?keyword=WM`, { key: h.apiKey })
        assert.deepStrictEqual([keyword.json.total, keyword.json.data.map((r: any) => r.alias)], [1, ["webmail"]])
        const paged = yield* request(`${h.baseUrl}/metrics/uptime?limit=1&offset=1`, { key: h.apiKey })
        assert.deepStrictEqual([paged.json.total, paged.json.data.map((r: any) => r.alias)], [3, ["web"]])
      })
    )
  )

  it.live("refuses a bad period, limit, offset or keyword, or an unknown parameter, with 400", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles })
        const bad = [
          ["period=2h", "period"],
          ["period=", "period"],
          ["limit=0", "limit"],
          ["limit=x", "limit"],
          ["limit=1001", "limit"],
          ["offset=-1", "offset"],
          ["offset=1.5", "offset"],
          [`keyword=${"k".repeat(254)}`, "keyword"],
          ["perod=1h", "perod"]
        ]
        for (const [query, field] of bad) {
          const reply = yield* request(`${h.baseUrl}/metrics/uptime?${query}`, { key: h.apiKey })
          assert.strictEqual(reply.status, 400, query)
          assert.strictEqual(reply.json.error.code, "invalid_argument", query)
          assert.deepStrictEqual(reply.json.error.details[0].path.slice(0, 2), ["query", field], query)
        }
        // What the value may be, not the name of a schema ("Expected UptimePeriod", "Expected string").
        const period = yield* request(`${h.baseUrl}/metrics/uptime?period=2h`, { key: h.apiKey })
        assert.strictEqual(period.json.error.details[0].message, 'expected one of "5m", "15m", "1h", "1d" or "1mo"')
        const twice = yield* request(`${h.baseUrl}/metrics/uptime?limit=2&limit=3`, { key: h.apiKey })
        assert.strictEqual(twice.json.error.details[0].message, "expected one value, got the parameter more than once")
        const ws = yield* Effect.flip(openWs(`${h.wsUrl}/metrics/uptime?period=2h`, { key: h.apiKey }))
        assert.strictEqual(ws.status, 400)
        assert.strictEqual(JSON.parse(ws.body).error.code, "invalid_argument")
        const unauthenticated = yield* request(`${h.baseUrl}/metrics/uptime`, { key: null })
        assert.strictEqual(unauthenticated.status, 401)
      })
    )
  )

  it.live("the WebSocket sends the page, then a page after every sample; closing it frees the watcher", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ routeFiles, health: { web: healthy } })
        const ws = yield* openWs(`${h.wsUrl}/metrics/uptime?period=5m&keyword=web&limit=1`, { key: h.apiKey })
        const first = JSON.parse(yield* ws.next())
        assert.strictEqual(first.total, 2)
        assert.deepStrictEqual(
          first.data.map((r: any) => r.alias),
          ["web"]
        )
        assert.strictEqual(yield* h.uptimeWatchers, 1)
        yield* h.health.set({ web: { ...healthy, status: "unhealthy" } })
        // The next samples (a second apart) see the route down.
        const down = yield* ws.until((page) => page.data[0].downtime > 0)
        assert.strictEqual(down.data[0].current_status, "unhealthy")
        ws.socket.close()
        yield* waitFor(h.uptimeWatchers, (n) => n === 0, "the watcher to be released")
        yield* waitFor(h.openStreams, (n) => n === 0, "the server to close the stream")
      })
    )
  )
})
