import { assert, describe, it } from "@effect/vitest"
import { InvalidYaml } from "@gatehouse-edge/contract/domain"
import { Cause, Effect, Exit, Layer } from "effect"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as ValidationWorkersLive from "../../src/validation/ValidationWorkersLive.js"

// One anchored route with a 100,000-character description, reused by 400 routes: a 104 KB document that would
// render to a 40 MB answer (and, with more copies, to gigabytes), copied from the worker into the server.
const copies = 400
const amplified = [
  `base: &b\n  port: 80\n  homepage: {description: "${"A".repeat(100_000)}"}`,
  ...Array.from({ length: copies }, (_, i) => `r${i}: *b`)
].join("\n")

const limitMessage = /^document expands to more than 33554432 characters of text through aliases/

// Every job on a worker thread, as a large document is in the server.
const onWorkers = RouteValidatorLive.layerOnWorkers.pipe(
  Layer.provide(ValidationWorkersLive.layerWith({ inlineBelow: 0, size: 1 }))
)

describe("a long value reused by many aliases", () => {
  it.live("is refused on the validate path with the limit named, before anything is rendered", () =>
    Effect.gen(function* () {
      const validator = yield* RouteValidator
      const started = performance.now()
      const exit = yield* Effect.exit(validator.validateJson(amplified, "route"))
      if (Exit.isSuccess(exit)) assert.fail(`expected InvalidYaml, got a body of ${exit.value.length} characters`)
      const error = Cause.squash(exit.cause)
      assert.instanceOf(error, InvalidYaml)
      assert.match(error.issues[0]!.message, limitMessage)
      // 100,025 characters per copy of the route (its keys and the description) plus 2 to 4 per alias's key: the
      // 335th alias (`r334`, line 338) passes 32 Mi characters.
      assert.strictEqual(error.issues[0]!.line, 338)
      assert.isBelow(performance.now() - started, 5_000)
    }).pipe(Effect.provide(onWorkers))
  )

  it.live("is refused as a route file, the issue carrying the file's name", () =>
    Effect.gen(function* () {
      const validator = yield* RouteValidator
      const report = yield* validator.validateSources([
        { file: "ok.yml", text: "app:\n  port: 80\n" },
        { file: "amplified.yml", text: amplified }
      ])
      assert.isFalse(report.valid)
      assert.strictEqual(report.files[0]!.report.valid, true)
      assert.strictEqual(report.files[1]!.report._tag, "InvalidYaml")
      assert.strictEqual(report.issues.length, 1)
      assert.strictEqual(report.issues[0]!.file, "amplified.yml")
      assert.match(report.issues[0]!.message, limitMessage)
    }).pipe(Effect.provide(onWorkers))
  )
})
