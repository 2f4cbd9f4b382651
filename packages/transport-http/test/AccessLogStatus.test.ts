import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { waitFor } from "../../../test/support/WaitFor.js"
import type { AccessLogEntry } from "../src/index.js"
import { openWs } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

/** The access-log line for `path`, once it is written (a stream's line comes when it closes). */
const lineFor = (entries: ReadonlyArray<AccessLogEntry>, path: string) =>
  Effect.map(
    waitFor(
      Effect.sync(() => entries.find((entry) => entry.path === path)),
      (line) => line !== undefined,
      `an access-log line for ${path}`
    ),
    (line) => line!
  )

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

  it.live(
    "a stream that dies after the upgrade: the client gets 1011 and a generic reason, the line keeps the 101",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const entries: Array<AccessLogEntry> = []
          const h = yield* startHarness({ accessLog: (entry) => entries.push(entry) })
          const ws = yield* openWs(`${h.wsUrl}/health`, { key: h.apiKey })
          yield* ws.next()
          yield* h.breakHealthStreams(new Error("database password is hunter2"))
          const closed = yield* Effect.promise(() => ws.closed)
          assert.strictEqual(closed.code, 1011)
          assert.strictEqual(closed.reason, "internal error")
          const line = yield* lineFor(entries, "/api/v1/health")
          assert.strictEqual(line.status, 101)
          // The server goes on serving.
          const again = yield* openWs(`${h.wsUrl}/events`, { key: h.apiKey })
          again.socket.close(1000)
        })
      )
  )
})
