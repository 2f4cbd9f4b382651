import * as fs from "node:fs"
import * as path from "node:path"
import { Deferred, Effect, type Fiber } from "effect"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import { tempDir } from "../store/TempDir.js"

/**
 * A fresh directory holding a routes directory with `routeFiles` (name → content) and a config file: what the files
 * service is started on (see StartFiles).
 */
export const filesLayout = (routeFiles: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const routesDir = path.join(dir, "routes")
    fs.mkdirSync(routesDir)
    for (const [name, content] of Object.entries(routeFiles)) fs.writeFileSync(path.join(routesDir, name), content)
    const configFile = path.join(dir, "gatehouse.yml")
    fs.writeFileSync(configFile, "events: { history: 10 }\n")
    return { dir, routesDir, configFile }
  })

/**
 * What a fiber ended with, polled for on the wall clock (where the file system works) for at most 5 s: an operation
 * that hangs fails the test here rather than at its own timeout, or never.
 */
export const outcomeOf = <A, E>(fiber: Fiber.Fiber<A, E>, name: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1000; i++) {
      const exit = fiber.pollUnsafe()
      if (exit !== undefined) return yield* exit
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
    return yield* Effect.die(new Error(`${name} is still waiting after 5 s`))
  })

/**
 * A validator under which the write of `file` holds the write lock in its check until the test lets it go:
 * `holding` completes once it holds it, `release` lets it (and every later write of `file`) go on.
 */
export const holdingWriteOf = (file: string) =>
  Effect.gen(function* () {
    const holding = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const validator = RouteValidator.of({
      ...RouteValidatorLive.inline,
      validateSources: (sources) =>
        sources.at(-1)?.file === file && !Deferred.isDoneUnsafe(release)
          ? Effect.andThen(
              Deferred.succeed(holding, undefined),
              Effect.andThen(Deferred.await(release), RouteValidatorLive.inline.validateSources(sources))
            )
          : RouteValidatorLive.inline.validateSources(sources)
    })
    return { validator, holding, release }
  })
