import { assert, describe, it } from "@effect/vitest"
import type { AccessLogEntry } from "@gatehouse-edge/transport-http"
import { Cause, Effect } from "effect"
import { isoTimestamp, plainAccessLine } from "../src/AccessLogLine.js"
import { leanJsonLine } from "../src/LeanJsonLogger.js"

const entries: ReadonlyArray<AccessLogEntry> = [
  {
    method: "GET",
    path: "/api/v1/health",
    status: 200,
    duration_ms: 3,
    request_id: "0d2f5c4e-1b7a-4c1e-9f0e-2f4b6a8c0d1e"
  },
  { method: "POST", path: "/api/v1/route/validate", status: 400, duration_ms: 0.25 },
  // Paths are echoed as sent (percent-decoding is the router's): quotes, backslashes, control and non-ASCII text.
  {
    method: "GET",
    path: '/api/v1/"quoted"\\back\u0001slash/caf\u00e9\u2026 (5008 characters)',
    status: 404,
    duration_ms: 12
  },
  { method: "PROPFIND", path: "/", status: 405, duration_ms: 1e21, request_id: "trace.42_a-b" }
]

describe("an access-log line", () => {
  it.effect("is byte for byte what the lean formatter writes for the same entry", () =>
    Effect.withFiber((fiber) => {
      const date = new Date("2026-11-25T12:34:56.789Z")
      for (const entry of entries) {
        const lean = leanJsonLine({ message: "http", logLevel: "Info", cause: Cause.empty, fiber, date }, () => ({
          ...entry
        }))
        assert.strictEqual(plainAccessLine(entry, fiber, date), lean)
      }
      return Effect.void
    })
  )

  it.effect("is left to the formatter when the fiber has annotations or spans of its own", () =>
    Effect.gen(function* () {
      const date = new Date()
      const annotated = yield* Effect.withFiber((fiber) => Effect.succeed(plainAccessLine(entries[0]!, fiber, date)))
      assert.isString(annotated)
      const withAnnotation = yield* Effect.withFiber((fiber) =>
        Effect.succeed(plainAccessLine(entries[0]!, fiber, date))
      ).pipe(Effect.annotateLogs({ tenant: "a" }))
      assert.isUndefined(withAnnotation)
      const withSpan = yield* Effect.withFiber((fiber) =>
        Effect.succeed(plainAccessLine(entries[0]!, fiber, date))
      ).pipe(Effect.withLogSpan("work"))
      assert.isUndefined(withSpan)
    })
  )

  it("formats its timestamp as toISOString does, within a second, across seconds, years and the range's ends", () => {
    const times = [
      Date.UTC(2026, 10, 25, 12, 34, 56, 789),
      Date.UTC(2026, 10, 25, 12, 34, 56, 7),
      Date.UTC(2026, 10, 25, 12, 34, 56, 70),
      Date.UTC(2026, 10, 25, 12, 34, 57, 0),
      Date.UTC(2026, 10, 25, 12, 34, 56, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 0),
      0,
      253_402_300_799_999,
      253_402_300_800_000,
      -1,
      -62_198_755_200_000
    ]
    for (const ms of times) assert.strictEqual(isoTimestamp(new Date(ms)), new Date(ms).toISOString(), String(ms))
  })
})
