import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { AccessLogEntry } from "../src/index.js"
import { openWs } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

/** Polls until `entries` holds a line for `path`, failing after a deadline. */
const lineFor = (entries: ReadonlyArray<AccessLogEntry>, path: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200; i++) {
      const line = entries.find((entry) => entry.path === path)
      if (line !== undefined) return line
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`no access-log line for ${path}: ${JSON.stringify(entries)}`))
  })

describe("the access log of WebSocket streams", () => {
  it.live("records the 101 the client got, not the 204 of the handler's empty response", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const entries: Array<AccessLogEntry> = []
        const h = yield* startHarness({ accessLog: (entry) => entries.push(entry) })
        yield* Effect.scoped(
          Effect.gen(function* () {
            const ws = yield* openWs(`${h.wsUrl}/events`, { key: h.apiKey })
            ws.socket.close(1000)
            yield* Effect.promise(() => ws.closed)
          })
        )
        const line = yield* lineFor(entries, "/api/v1/events")
        assert.strictEqual(line.method, "GET")
        assert.strictEqual(line.status, 101)

        // A refused upgrade is logged with the status it answered.
        const refused = yield* Effect.flip(openWs(`${h.wsUrl}/health`, { key: "gh_wrong_key" }))
        assert.strictEqual(refused.status, 401)
        assert.strictEqual((yield* lineFor(entries, "/api/v1/health")).status, 401)
      })
    )
  )
})
