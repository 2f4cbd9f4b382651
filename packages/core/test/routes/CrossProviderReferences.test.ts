import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { type Route, ValidationFailed } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Queue, Stream } from "effect"
import * as ConfigSourceLive from "../../src/config/ConfigSourceLive.js"
import { loadConfig } from "../../src/config/index.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Files } from "../../src/files/Files.js"
import * as FilesLive from "../../src/files/FilesLive.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import { type ProviderState, RouteProviders } from "../../src/routes/RouteProviders.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { eventually } from "../events/TestBus.js"
import { tempDir } from "../store/TempDir.js"
import { validRoute } from "./helpers.js"

// A route file may depend on a route another provider serves (a Docker container's labels): the merged table
// checks the reference, so the route joins once its dependency is there and leaves when it is gone.

const withFilesAndDocker = Effect.gen(function* () {
  const dir = yield* tempDir
  const routesDir = path.join(dir, "routes")
  fs.mkdirSync(routesDir)
  fs.writeFileSync(path.join(routesDir, "app.yml"), "app:\n  port: 80\n  idlewatcher:\n    depends_on: [db]\n")
  const configFile = path.join(dir, "gatehouse.yml")
  fs.writeFileSync(configFile, "{}\n")
  const sources = { env: {}, flags: {}, cwd: dir }
  const loaded = loadConfig({ ...sources, file: { path: configFile, text: "{}\n" } })
  if (loaded._tag === "Invalid") return yield* Effect.die(new Error("invalid config"))
  const layer = FilesLive.layer({ configFile, routesDir }).pipe(
    Layer.provideMerge(FileRoutes.layer({ routesDir })),
    Layer.provideMerge(RoutesLive.layer),
    Layer.provide(ConfigSourceLive.layer(loaded.config, sources)),
    Layer.provide(Layer.succeed(RouteValidator)(RouteValidatorLive.inline)),
    Layer.provideMerge(
      EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
    )
  )
  const context = yield* Layer.build(layer)
  const docker = yield* Queue.unbounded<ProviderState>()
  const dockerState = (...routes: ReadonlyArray<Route>): ProviderState => ({
    routes: routes.map((route) => ({ route, source: "docker:local", excluded: false })),
    issues: []
  })
  return {
    routes: Context.get(context, Routes),
    providers: Context.get(context, RouteProviders),
    files: Context.get(context, Files),
    docker,
    dockerState
  }
})

const aliases = (routes: Routes["Service"]) =>
  Effect.map(routes.list, (records) => records.map((r) => `${r.route.alias}@${r.provider}`).sort())

describe("depends_on across providers", () => {
  it.live("a file's route that depends on a container's route joins with it, and is reported while it is missing", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { routes, providers, docker, dockerState } = yield* withFilesAndDocker
        // No such route yet: left out of the table, and said why.
        assert.deepStrictEqual(yield* aliases(routes), [])
        const problems = yield* Stream.runHead(routes.problems)
        assert.include(JSON.stringify(problems), "depends on `db`, which is not a route")

        yield* Queue.offer(docker, dockerState(validRoute("db:\n  port: 5432\n")))
        yield* providers.add({ name: "docker:local", states: Stream.fromQueue(docker) })
        yield* eventually(
          "the file's route joining",
          Effect.map(aliases(routes), (table) => table.length === 2)
        )
        assert.deepStrictEqual(yield* aliases(routes), ["app@file:app.yml", "db@docker:local"])

        yield* Queue.offer(docker, dockerState())
        yield* eventually(
          "the file's route leaving with its dependency",
          Effect.map(aliases(routes), (table) => table.length === 0)
        )
      })
    )
  )

  it.live(
    "a route file written through the API may depend on a container's route; a name nobody serves is refused",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { files, providers, docker, dockerState } = yield* withFilesAndDocker
          yield* Queue.offer(docker, dockerState(validRoute("db:\n  port: 5432\n")))
          yield* providers.add({ name: "docker:local", states: Stream.fromQueue(docker) })
          const written = yield* files.write(
            "routes",
            "web.yml",
            "web:\n  port: 81\n  idlewatcher:\n    depends_on: [db]\n"
          )
          assert.isObject(written)
          const typo = yield* Effect.flip(
            files.write("routes", "web2.yml", "web2:\n  port: 82\n  idlewatcher:\n    depends_on: [dbb]\n")
          )
          assert.instanceOf(typo, ValidationFailed)
          assert.include(JSON.stringify(typo.issues), "depends on `dbb`, which is not a route")
        })
      )
  )

  it.effect("a strict start takes such a file as the reload does", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir
        fs.writeFileSync(path.join(dir, "app.yml"), "app:\n  port: 80\n  idlewatcher:\n    depends_on: [db]\n")
        assert.deepStrictEqual(yield* FileRoutes.problemsOf(dir), [])
      })
    )
  )
})
