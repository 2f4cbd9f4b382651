import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ValidationQueueFull } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"

/** Route files over the real validator whose workers are busy for the next `busyFor` calls (as under a flood). */
const busyValidator = Effect.gen(function* () {
  const dir = yield* tempDir
  fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 1\n")
  const state = { busyFor: 0, calls: 0 }
  const validator = RouteValidator.of({
    ...RouteValidatorLive.inline,
    validateSources: (sources) =>
      Effect.suspend(() => {
        state.calls += 1
        if (state.busyFor === 0) return RouteValidatorLive.inline.validateSources(sources)
        state.busyFor -= 1
        return Effect.fail(new ValidationQueueFull({ queued: 8 }))
      })
  })
  const layer = FileRoutes.layer({ routesDir: dir }).pipe(
    Layer.provideMerge(RoutesLive.layer),
    Layer.provide(Layer.succeed(RouteValidator)(validator)),
    Layer.provideMerge(
      EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
    )
  )
  const routes = Context.get(yield* Layer.build(layer), Routes)
  const table = Effect.map(routes.list, (list) => list.map((r) => [r.route.alias, r.route.port.target]))
  // The reload reads the files (real I/O) before it asks the validator: the test clock moves once it has asked.
  const untilCalls = (calls: number) =>
    Effect.promise(async () => {
      const deadline = Date.now() + 10_000
      while (state.calls < calls && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
    })
  return { dir, state, routes, table, untilCalls }
})

describe("route files when validation is unavailable", () => {
  it.effect("a reload that cannot be validated, even after waiting, keeps every file's routes and reports why", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { dir, state, routes, table, untilCalls } = yield* busyValidator
        state.busyFor = Number.POSITIVE_INFINITY
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 2\n")
        const reload = yield* Effect.forkChild(routes.reload)
        yield* untilCalls(2)
        yield* TestClock.adjust("20 seconds")
        const outcome = yield* Fiber.join(reload)
        assert.deepStrictEqual(
          outcome.issues.map((issue) => issue.message),
          [
            "the route files could not be validated: " +
              "the server is busy validating other large documents (8 waiting); retry later"
          ]
        )
        assert.strictEqual(state.calls, 1 + 7, "the start, then the reload and its six retries")
        assert.deepStrictEqual(yield* table, [["one", 1]])
        state.busyFor = 0
        yield* routes.reload
        assert.deepStrictEqual(yield* table, [["one", 2]])
      })
    )
  )

  it.effect("a reload that finds the workers busy waits for them instead of dropping the change", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { dir, state, routes, table, untilCalls } = yield* busyValidator
        state.busyFor = 2
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 2\n")
        const reload = yield* Effect.forkChild(routes.reload)
        yield* untilCalls(2)
        yield* TestClock.adjust("250 millis")
        assert.isUndefined(reload.pollUnsafe(), "still waiting after the first retry")
        yield* TestClock.adjust("500 millis")
        const outcome = yield* Fiber.join(reload)
        assert.deepStrictEqual(outcome.issues, [])
        assert.deepStrictEqual(outcome.changed, ["one"])
        assert.deepStrictEqual(yield* table, [["one", 2]])
      })
    )
  )
})
