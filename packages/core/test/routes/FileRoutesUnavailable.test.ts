import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ValidationQueueFull } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer } from "effect"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"

describe("route files when validation is unavailable", () => {
  it.live("a reload that cannot be validated keeps every file's routes and reports why", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 1\n")
        let busy = false
        // The real validator, but its workers can be made busy (as under a flood of large documents).
        const validator = RouteValidator.of({
          ...RouteValidatorLive.inline,
          validateSources: (sources) =>
            busy
              ? Effect.fail(new ValidationQueueFull({ queued: 8 }))
              : RouteValidatorLive.inline.validateSources(sources)
        })
        const layer = FileRoutes.layer({ routesDir: dir }).pipe(
          Layer.provideMerge(RoutesLive.layer),
          Layer.provide(Layer.succeed(RouteValidator)(validator)),
          Layer.provideMerge(
            EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
          )
        )
        const routes = Context.get(yield* Layer.build(layer), Routes)
        busy = true
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 2\n")
        const outcome = yield* routes.reload
        assert.deepStrictEqual(
          outcome.issues.map((issue) => issue.message),
          [
            "the route files could not be validated: " +
              "the server is busy validating other large documents (8 waiting); retry later"
          ]
        )
        assert.deepStrictEqual(
          (yield* routes.list).map((r) => [r.route.alias, r.route.port.target]),
          [["one", 1]]
        )
        busy = false
        yield* routes.reload
        assert.deepStrictEqual(
          (yield* routes.list).map((r) => [r.route.alias, r.route.port.target]),
          [["one", 2]]
        )
      })
    )
  )
})
