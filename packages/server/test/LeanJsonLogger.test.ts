import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Logger } from "effect"
import { leanJsonLine, leanJsonLogger, leanJsonLoggerWith } from "../src/LeanJsonLogger.js"

const both = (program: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const lines: Array<{ lean: string; general: string; fast: boolean }> = []
    const recorder = Logger.make((options) =>
      lines.push({
        lean: leanJsonLogger.log(options),
        general: Logger.formatJson.log(options),
        fast: leanJsonLine(options) !== undefined
      })
    )
    yield* program.pipe(Effect.provide(Logger.layer([recorder])))
    return lines
  })

describe("leanJsonLogger", () => {
  it.effect("writes what Logger.formatJson writes, for access-log lines and for everything else", () =>
    Effect.gen(function* () {
      const lines = yield* both(
        Effect.gen(function* () {
          yield* Effect.logInfo("http").pipe(
            Effect.annotateLogs({
              request_id: "r-1",
              method: "GET",
              path: "/api/v1/health",
              status: 200,
              duration_ms: 1
            })
          )
          yield* Effect.logWarning("with a span").pipe(Effect.withLogSpan("work"))
          yield* Effect.logError("request failed", Cause.fail(new Error("boom")))
          yield* Effect.logInfo("two", "parts", { n: 1 })
          yield* Effect.logInfo("a bigint").pipe(Effect.annotateLogs({ big: 10n }))
        })
      )
      assert.strictEqual(lines.length, 5)
      for (const { lean, general } of lines) assert.deepStrictEqual(JSON.parse(lean), JSON.parse(general))
      assert.deepInclude(JSON.parse(lines[0]!.lean).annotations, { request_id: "r-1", status: 200 })
      // The access-log line and the span line take the lean path; a cause, several parts or a bigint do not.
      assert.deepStrictEqual(
        lines.map((l) => l.fast),
        [true, true, false, false, false]
      )
    })
  )

  it.effect("adds the extra annotations to a lean line as if they had been annotated", () =>
    Effect.gen(function* () {
      const lines: Array<{ with: string; annotated: string }> = []
      const withExtra = leanJsonLoggerWith(() => ({ request_id: "r-7" }), Logger.formatJson)
      yield* Effect.logInfo("http").pipe(
        Effect.annotateLogs({ status: 200 }),
        Effect.provide(
          Logger.layer([Logger.make((options) => lines.push({ with: withExtra.log(options), annotated: "" }))])
        )
      )
      yield* Effect.logInfo("http").pipe(
        Effect.annotateLogs({ status: 200, request_id: "r-7" }),
        Effect.provide(Logger.layer([Logger.make((options) => (lines[0]!.annotated = Logger.formatJson.log(options)))]))
      )
      const { fiberId: _a, timestamp: _b, ...lean } = JSON.parse(lines[0]!.with)
      const { fiberId: _c, timestamp: _d, ...general } = JSON.parse(lines[0]!.annotated)
      assert.deepStrictEqual(lean, general)
      assert.strictEqual(lean.annotations.request_id, "r-7")
    })
  )
})
