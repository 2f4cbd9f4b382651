import { assert, describe, it } from "@effect/vitest"
import { LoginFailedEvent } from "@gatehouse-edge/core/domain"
import { Effect } from "effect"
import { v7 } from "uuid"
import { labelOf, testEvent } from "../../../test/support/TestEvents.js"
import { openWs, request } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

/** The refusal of a WebSocket upgrade to `url`; one that upgrades fails the test, saying how the stream closed. */
const refusedUpgrade = (url: string, key: string) =>
  Effect.flip(
    Effect.flatMap(openWs(url, { key }), (ws) =>
      Effect.flatMap(
        Effect.promise(() => ws.closed),
        (close) =>
          Effect.die(new Error(`upgraded (frames: ${ws.frames.length}), then closed ${close.code}: ${close.reason}`))
      )
    )
  )

describe("GET /events with since", () => {
  it.live("gives the oldest `limit` after since: a client far behind pages on until a page is short", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        for (let i = 0; i < 5; i++) yield* h.events.publish(testEvent(`n${i}`, "health"))
        const first = yield* request(`${h.baseUrl}/events?category=health`, { key: h.apiKey })
        // The client saw n0–n4; 250 more are published before it polls again.
        for (let i = 5; i < 255; i++) yield* h.events.publish(testEvent(`n${i}`, "health"))
        const pages: Array<ReadonlyArray<string>> = []
        let since: string = first.json.at(-1).id
        for (;;) {
          const reply = yield* request(`${h.baseUrl}/events?category=health&since=${since}`, { key: h.apiKey })
          assert.strictEqual(reply.status, 200, reply.text)
          pages.push(reply.json.map(labelOf))
          if (reply.json.length < 100) break
          since = reply.json.at(-1).id
        }
        // It answered the newest 100 (n155–n254): n5–n154 were lost, and no page led to them.
        const span = (page: ReadonlyArray<string>) => `${page[0]}–${page.at(-1)} (${page.length})`
        assert.deepStrictEqual(pages.map(span), ["n5–n104 (100)", "n105–n204 (100)", "n205–n254 (50)"])
        assert.deepStrictEqual(
          pages.flat(),
          Array.from({ length: 250 }, (_, i) => `n${i + 5}`)
        )
      })
    )
  )

  it.live("a since the history cap dropped is a 410 (EventsTrimmed), on a GET and before the upgrade", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ configYaml: "events: { history: 10 }\n" })
        for (let i = 0; i < 5; i++) yield* h.events.publish(testEvent(`n${i}`))
        const seen = (yield* request(`${h.baseUrl}/events`, { key: h.apiKey })).json.at(-1).id as string
        // Away while 30 more are published: the history keeps n25–n34.
        for (let i = 5; i < 35; i++) yield* h.events.publish(testEvent(`n${i}`))
        const kept = (yield* request(`${h.baseUrl}/events`, { key: h.apiKey })).json
        assert.deepStrictEqual(
          kept.map(labelOf),
          Array.from({ length: 10 }, (_, i) => `n${i + 25}`)
        )

        const expected = {
          error: {
            code: "gone",
            message: `events after ${seen} were dropped from the history (its cap): follow again without since`,
            details: [{ reason: "EventsTrimmed", since: seen, oldest_id: kept[0].id }]
          }
        }
        // It answered n25–n34, as if they came right after n4.
        const plain = yield* request(`${h.baseUrl}/events?since=${seen}`, { key: h.apiKey })
        assert.deepStrictEqual([plain.status, plain.json], [410, expected], plain.text.slice(0, 200))
        const upgrade = yield* refusedUpgrade(`${h.wsUrl}/events?since=${seen}`, h.apiKey)
        assert.deepStrictEqual([upgrade.status, JSON.parse(upgrade.body)], [410, expected])

        // The oldest kept event still resumes, over both.
        const resumed = yield* request(`${h.baseUrl}/events?since=${kept[0].id}`, { key: h.apiKey })
        assert.deepStrictEqual(resumed.json.map(labelOf), kept.slice(1).map(labelOf))
        const ws = yield* openWs(`${h.wsUrl}/events?since=${kept[0].id}`, { key: h.apiKey })
        assert.strictEqual(labelOf(JSON.parse(yield* ws.next())), "n26")
      })
    )
  )

  it.live(
    "a category's follower resumes after a flood of failed sign-ins it never reads, by GET and by WebSocket",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          // Failed sign-ins keep to a tenth of the history (here 2 of 20); anybody can cause them, without a key.
          const h = yield* startHarness({ configYaml: "events: { history: 20 }\n" })
          const seen = yield* h.events.publish(testEvent("before", "health"))
          for (let i = 0; i < 10; i++) {
            yield* h.events.publish(
              LoginFailedEvent.make({ username: "", method: "session", address: "203.0.113.9", reason: "unknown user" })
            )
          }
          yield* h.events.publish(testEvent("after", "health"))
          const url = `/events?category=health&since=${seen.id}`
          const plain = yield* request(`${h.baseUrl}${url}`, { key: h.apiKey })
          assert.deepStrictEqual([plain.status, plain.json.map(labelOf)], [200, ["after"]], plain.text.slice(0, 200))
          const ws = yield* openWs(`${h.wsUrl}${url}`, { key: h.apiKey })
          assert.strictEqual(labelOf(JSON.parse(yield* ws.next())), "after")
          // Every category together did miss some: the dropped sign-ins.
          const everything = yield* request(`${h.baseUrl}/events?since=${seen.id}`, { key: h.apiKey })
          assert.strictEqual(everything.status, 410, everything.text.slice(0, 200))
        })
      )
  )

  it.live("a category's follower resumes after other categories' events pushed its last one out of the history", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ configYaml: "events: { history: 10 }\n" })
        const seen = yield* h.events.publish(testEvent("seen"))
        for (let i = 0; i < 30; i++) yield* h.events.publish(testEvent(`n${i}`, "health"))
        const url = `/events?category=config&since=${seen.id}`
        // None of its own came after it: nothing missed, though `seen` itself is gone.
        const plain = yield* request(`${h.baseUrl}${url}`, { key: h.apiKey })
        assert.deepStrictEqual([plain.status, plain.json], [200, []], plain.text.slice(0, 200))
        const ws = yield* openWs(`${h.wsUrl}${url}`, { key: h.apiKey })
        yield* h.events.publish(testEvent("live"))
        assert.strictEqual(labelOf(JSON.parse(yield* ws.next())), "live")
        // Every category together did miss some: the health events dropped after it.
        const everything = yield* request(`${h.baseUrl}/events?since=${seen.id}`, { key: h.apiKey })
        assert.strictEqual(everything.status, 410, everything.text.slice(0, 200))
      })
    )
  )

  it.live("a made-up id older than this store's first event is a 404, also once the cap has dropped events", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({ configYaml: "events: { history: 10 }\n" })
        const first = yield* h.events.publish(testEvent("n0"))
        for (let i = 1; i < 35; i++) yield* h.events.publish(testEvent(`n${i}`))
        // Well formed, but from before this store held anything: it was never dropped from it.
        const ancient = v7({ msecs: Date.UTC(2020, 0, 1), seq: 0 })
        const plain = yield* request(`${h.baseUrl}/events?since=${ancient}`, { key: h.apiKey })
        assert.deepStrictEqual(
          [plain.status, plain.json.error?.details],
          [404, [{ reason: "EventNotFound", since: ancient }]],
          plain.text.slice(0, 200)
        )
        const upgrade = yield* refusedUpgrade(`${h.wsUrl}/events?since=${ancient}`, h.apiKey)
        assert.strictEqual(upgrade.status, 404)
        // The store's own first event, dropped since, is still a 410.
        const dropped = yield* request(`${h.baseUrl}/events?since=${first.id}`, { key: h.apiKey })
        assert.strictEqual(dropped.status, 410, dropped.text.slice(0, 200))
      })
    )
  )

  it.live("a since that was never an event here is a 404 (EventNotFound), on a GET and before the upgrade", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness()
        yield* h.events.publish(testEvent("a"))
        // Newer than every event: another server's id, or one from before this store was reset.
        const foreign = v7({ msecs: Date.UTC(2100, 0, 1), seq: 0 })
        const expected = {
          error: {
            code: "not_found",
            message: `no event ${foreign} in the history: follow again without since`,
            details: [{ reason: "EventNotFound", since: foreign }]
          }
        }
        const plain = yield* request(`${h.baseUrl}/events?since=${foreign}&category=config`, { key: h.apiKey })
        assert.deepStrictEqual([plain.status, plain.json], [404, expected], plain.text.slice(0, 200))
        const upgrade = yield* refusedUpgrade(`${h.wsUrl}/events?since=${foreign}`, h.apiKey)
        assert.deepStrictEqual([upgrade.status, JSON.parse(upgrade.body)], [404, expected])
      })
    )
  )
})
