import { assert, describe, it } from "@effect/vitest"
import {
  FileValidationResult,
  RouteValidationResult,
  ValidationQueueFull,
  ValidationTimedOut,
  ValidationWorkerFailed
} from "@gatehouse-edge/contract/domain"
import { Context, Effect, Exit, Fiber, Layer, Option, Schema } from "effect"
import { TestClock } from "effect/testing"
import { deepDocuments } from "../../../../test/support/DeepYaml.js"
import { generateRouteFile } from "../../../../test/support/GeneratedRoutes.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import { type ValidationJob, ValidationWorkers } from "../../src/validation/ValidationWorkers.js"
import * as ValidationWorkersLive from "../../src/validation/ValidationWorkersLive.js"
import { configDocuments, routeDocuments, routeSources } from "./ValidationCorpus.js"

const configSources = { env: { GATEHOUSE_DATA_DIR: "/srv/data" }, flags: { http: "127.0.0.1:0" }, cwd: "/srv" }

const jobs: ReadonlyArray<ValidationJob> = [
  ...routeDocuments.map((text): ValidationJob => ({ kind: "routes", text })),
  { kind: "routes", text: routeDocuments[3]!, file: "apps.yml" },
  ...routeDocuments.map((text): ValidationJob => ({ kind: "routesJson", text, body: "route" })),
  { kind: "routesJson", text: routeDocuments[0]!, body: "file" },
  { kind: "sources", sources: routeSources },
  { kind: "sources", sources: [] },
  ...configDocuments.map(
    (text): ValidationJob => ({ kind: "config", text, path: "/srv/gatehouse.yml", sources: configSources })
  )
]

/** The workers layer with every job on a worker thread, counting the threads it starts. */
const onThreads = (options: ValidationWorkersLive.ValidationWorkersOptions = {}) => {
  const spawned = { count: 0 }
  const layer = ValidationWorkersLive.layerWith({
    inlineBelow: 0,
    ...options,
    spawn: () => {
      spawned.count++
      return options.spawn?.() ?? ValidationWorkersLive.spawnValidationWorker()
    }
  })
  return { layer, spawned }
}

// The service of a layer that stays up for the rest of the test's scope.
const workersOf = (layer: Layer.Layer<ValidationWorkers>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, ValidationWorkers))

const runAll = (job: ValidationJob) => Effect.flatMap(Effect.service(ValidationWorkers), (workers) => workers.run(job))

describe("ValidationWorkers", () => {
  it.live("gives the same result on a worker thread as inline, for every kind of job", () =>
    Effect.gen(function* () {
      const inline = yield* Effect.forEach(jobs, runAll).pipe(Effect.provide(ValidationWorkersLive.layerInline))
      const { layer, spawned } = onThreads()
      const threaded = yield* Effect.forEach(jobs, runAll).pipe(Effect.provide(layer))
      assert.isAtLeast(spawned.count, 1)
      assert.strictEqual(threaded.length, jobs.length)
      for (let i = 0; i < jobs.length; i++) assert.deepStrictEqual(threaded[i], inline[i], `job ${i}`)
    })
  )

  it.live("the route validator answers the same on worker threads as inline (reports, errors, frames)", () =>
    Effect.gen(function* () {
      const threaded = yield* RouteValidator
      const inline = RouteValidatorLive.inline
      for (const text of routeDocuments) {
        assert.deepStrictEqual(yield* threaded.validateYaml(text), yield* inline.validateYaml(text))
        assert.deepStrictEqual(yield* threaded.frames(text), yield* inline.frames(text))
        const [a, b] = [yield* outcome(threaded.validate(text)), yield* outcome(inline.validate(text))]
        assert.deepStrictEqual(a, b)
        for (const body of ["route", "file"] as const) {
          const [x, y] = [
            yield* outcome(threaded.validateJson(text, body)),
            yield* outcome(inline.validateJson(text, body))
          ]
          assert.deepStrictEqual(x, y)
        }
      }
      assert.deepStrictEqual(yield* threaded.validateSources(routeSources), yield* inline.validateSources(routeSources))
    }).pipe(Effect.provide(RouteValidatorLive.layerOnWorkers.pipe(Layer.provide(onThreads().layer))))
  )

  it.effect("renders a valid document's answer exactly as the API encodes the typed routes", () =>
    Effect.gen(function* () {
      const validator = RouteValidatorLive.inline
      let valid = 0
      for (const text of routeDocuments) {
        const routes = yield* Effect.option(validator.validate(text))
        const json = yield* Effect.option(validator.validateJson(text, "route"))
        const file = yield* Effect.option(validator.validateJson(text, "file"))
        assert.strictEqual(Option.isSome(routes), Option.isSome(json))
        if (Option.isNone(routes) || Option.isNone(json) || Option.isNone(file)) continue
        valid++
        const expected = Schema.encodeSync(RouteValidationResult)({ valid: true, routes: routes.value })
        assert.strictEqual(json.value, JSON.stringify(expected))
        const expectedFile = Schema.encodeSync(FileValidationResult)({
          valid: true,
          type: "routes",
          routes: routes.value
        })
        assert.strictEqual(file.value, JSON.stringify(expectedFile))
      }
      assert.isAtLeast(valid, 5)
    })
  )

  it.live("runs small documents, and documents refused before parsing, in this thread", () =>
    Effect.gen(function* () {
      const { layer, spawned } = onThreads({ inlineBelow: ValidationWorkersLive.defaultInlineBelow })
      const workers = yield* workersOf(layer)
      const small = yield* workers.run({ kind: "routes", text: "app:\n  port: 80\n" })
      assert.isTrue(small.valid)
      for (const deep of deepDocuments()) {
        const refused = yield* workers.run({ kind: "routes", text: deep.text })
        assert.strictEqual(refused._tag, "InvalidYaml")
      }
      const huge = yield* workers.run({ kind: "routes", text: "#".repeat(9 * 1024 * 1024) })
      assert.strictEqual(huge._tag, "InvalidYaml")
      assert.strictEqual(spawned.count, 0)
      // Anchors in a URL's query or a plain scalar are not anchors.
      const ampersands = yield* workers.run({ kind: "routes", text: "app:\n  host: a&b\n  port: 80\n  # ?x=1&y=2\n" })
      assert.strictEqual(ampersands._tag, "Parsed")
      assert.strictEqual(spawned.count, 0)
      const large = yield* workers.run({ kind: "routes", text: generateRouteFile(100) })
      assert.isTrue(large.valid)
      assert.strictEqual(spawned.count, 1)
    }).pipe(Effect.scoped)
  )

  it.live("a small document with anchors goes to a worker: its aliases can expand it far past its size", () =>
    Effect.gen(function* () {
      const { layer, spawned } = onThreads({ inlineBelow: ValidationWorkersLive.defaultInlineBelow, size: 1 })
      const workers = yield* workersOf(layer)
      // 7.7 KB that expand to 1,900,000 nodes: ~200-400 ms of the event loop when validated inline.
      const aliases = `x:\n  a: &a [${Array(1000).fill("1").join(",")}]\n  b: [${Array(1900).fill("*a").join(",")}]\n`
      assert.isBelow(aliases.length, ValidationWorkersLive.defaultInlineBelow)
      const result = yield* workers.run({ kind: "routes", text: aliases })
      assert.isFalse(result.valid)
      assert.strictEqual(spawned.count, 1)
      for (const anchored of ["app: &x\n  port: 80\n", "- &x a\n", "{a: &x 1}\n", "[&x 1]\n", "&x a: 1\n"]) {
        assert.isTrue(ValidationWorkersLive.hasAnchor(anchored), anchored)
      }
      for (const plain of ["a: b&c\n", "url: http://h/?x=1&y=2\n", "a: '& b'\n", "a: &\n"]) {
        assert.isFalse(ValidationWorkersLive.hasAnchor(plain), plain)
      }
    }).pipe(Effect.scoped)
  )

  it.live("a worker that runs out of memory fails its job with ValidationWorkerFailed and is replaced", () =>
    Effect.gen(function* () {
      // The first worker gets a heap too small for a 1 MiB document; its replacement the default one.
      let started = 0
      const { layer, spawned } = onThreads({
        spawn: () =>
          ValidationWorkersLive.spawnValidationWorker(
            started++ === 0 ? { resourceLimits: { maxOldGenerationSizeMb: 32 } } : {}
          )
      })
      const workers = yield* workersOf(layer)
      const error = yield* Effect.flip(workers.run({ kind: "routes", text: generateRouteFile(8000) }))
      assert.instanceOf(error, ValidationWorkerFailed)
      assert.match(error.message, /^the validation worker stopped while validating the document \(.*memory/)
      const after = yield* workers.run({ kind: "routes", text: "app:\n  port: 80\n" })
      assert.isTrue(after.valid)
      assert.strictEqual(spawned.count, 2)
    }).pipe(Effect.scoped)
  )

  it.effect("a job past its time budget fails with ValidationTimedOut", () =>
    Effect.gen(function* () {
      const { layer } = onThreads({ timeoutMs: () => 2_000 })
      const workers = yield* workersOf(layer)
      const slow = yield* Effect.forkChild(workers.run({ kind: "routes", text: generateRouteFile(8000) }))
      yield* waitForRunning(workers, 1)
      yield* TestClock.adjust("2 seconds")
      const error = yield* Effect.flip(Fiber.join(slow))
      assert.instanceOf(error, ValidationTimedOut)
      assert.strictEqual(error.message, "validating the document took longer than 2 s and was stopped")
    }).pipe(Effect.scoped)
  )

  it.effect("the default budget (10 s, and 10 s more per MiB) ends a job with ValidationTimedOut in whole ms", () =>
    Effect.gen(function* () {
      const { layer } = onThreads()
      const workers = yield* workersOf(layer)
      const text = generateRouteFile(8000)
      const budgetMs = 10_000 + (10_000 * text.length) / (1024 * 1024)
      assert.notStrictEqual(budgetMs, Math.round(budgetMs), "the budget of this document is a fraction of a ms")
      const slow = yield* Effect.forkChild(workers.run({ kind: "routes", text }))
      yield* waitForRunning(workers, 1)
      yield* TestClock.adjust(Math.ceil(budgetMs))
      const error = yield* Effect.flip(Fiber.join(slow))
      assert.instanceOf(error, ValidationTimedOut)
      assert.strictEqual(error.timeout_ms, Math.ceil(budgetMs))
    }).pipe(Effect.scoped)
  )

  it.live("refuses a large document with ValidationQueueFull when every worker is busy and the queue is full", () =>
    Effect.gen(function* () {
      const { layer } = onThreads({ size: 1, maxQueued: 0, inlineBelow: ValidationWorkersLive.defaultInlineBelow })
      const workers = yield* workersOf(layer)
      const busy = yield* Effect.forkChild(workers.run({ kind: "routes", text: generateRouteFile(8000) }))
      yield* waitForRunning(workers, 1)
      const refused = yield* Effect.flip(workers.run({ kind: "routes", text: generateRouteFile(100) }))
      assert.instanceOf(refused, ValidationQueueFull)
      assert.strictEqual(
        refused.message,
        "the server is busy validating other large documents (0 waiting); retry later"
      )
      const small = yield* workers.run({ kind: "routes", text: "app:\n  port: 80\n" })
      assert.isTrue(small.valid)
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(busy)))
    }).pipe(Effect.scoped)
  )
})

// What `validate` answered: the routes, or the error's class and issues.
const outcome = <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E>) =>
  Effect.match(effect, {
    onSuccess: (value) => ({ value }),
    onFailure: (error) => ({ error: error._tag, issues: (error as { readonly issues?: unknown }).issues })
  })

// Waits (yielding, without a clock) until `count` jobs run on worker threads.
const waitForRunning = (workers: ValidationWorkers["Service"], count: number): Effect.Effect<void> =>
  Effect.flatMap(workers.running, (n) =>
    n >= count ? Effect.void : Effect.andThen(Effect.yieldNow, waitForRunning(workers, count))
  )
