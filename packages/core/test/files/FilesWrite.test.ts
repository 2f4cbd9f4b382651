import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { FilePreconditionFailed, formatIssue, ValidationTimedOut } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as ConfigSourceLive from "../../src/config/ConfigSourceLive.js"
import { loadConfig } from "../../src/config/index.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Files } from "../../src/files/Files.js"
import * as FilesLive from "../../src/files/FilesLive.js"
import { routeWriteOutcome } from "../../src/files/RouteWriteOutcome.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"

/**
 * The files service over real route files and the real route table, with a validator that times out from call
 * `failFrom` on (as an overloaded worker does) and runs `during` once inside the next call.
 */
const start = Effect.gen(function* () {
  const dir = yield* tempDir
  const routesDir = path.join(dir, "routes")
  fs.mkdirSync(routesDir)
  fs.writeFileSync(path.join(routesDir, "a.yml"), "one:\n  port: 1\n")
  const configFile = path.join(dir, "gatehouse.yml")
  fs.writeFileSync(configFile, "events: { history: 10 }\n")
  const sources = { env: {}, flags: {}, cwd: dir }
  const loaded = loadConfig({ ...sources, file: { path: configFile, text: fs.readFileSync(configFile, "utf8") } })
  if (loaded._tag === "Invalid") return yield* Effect.die(new Error(loaded.issues.map(formatIssue).join("\n")))
  const state = { calls: 0, failFrom: Number.POSITIVE_INFINITY, during: undefined as (() => void) | undefined }
  const validator = RouteValidator.of({
    ...RouteValidatorLive.inline,
    validateSources: (sources) =>
      Effect.suspend(() => {
        state.calls += 1
        state.during?.()
        state.during = undefined
        return state.calls >= state.failFrom
          ? Effect.fail(new ValidationTimedOut({ timeout_ms: 10_000 }))
          : RouteValidatorLive.inline.validateSources(sources)
      })
  })
  const routes = FileRoutes.layer({ routesDir }).pipe(Layer.provideMerge(RoutesLive.layer))
  const layer = FilesLive.layer({ configFile, routesDir }).pipe(
    Layer.provideMerge(Layer.merge(routes, ConfigSourceLive.layer(loaded.config, sources))),
    Layer.provide(Layer.succeed(RouteValidator)(validator)),
    Layer.provide(EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory)))
  )
  const context = yield* Layer.build(layer)
  const table = Effect.map(Context.get(context, Routes).list, (list) => list.map((r) => r.route.port.target))
  return { routesDir, state, files: Context.get(context, Files), table }
})

// Real file I/O finishes on the wall clock, whatever the test clock says.
const waitFor = <A>(effect: Effect.Effect<A>, done: (a: A) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const value = yield* effect
      if (done(value)) return value
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
    }
    return yield* effect
  })

describe("Files.write", () => {
  it.effect("a route file whose reload cannot be validated is written but not applied, then applied by a retry", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { state, files, table } = yield* start
        // The write's own check passes; the reload after it times out.
        state.failFrom = state.calls + 2
        const { written } = yield* files.write("routes", "a.yml", "one:\n  port: 2\n")
        assert.strictEqual(
          written.message,
          "routes file a.yml written, but not applied: the route files could not be validated (validating the " +
            "document took longer than 10 s and was stopped), so the running routes are unchanged; the reload is " +
            "tried again shortly (see the config/error event)"
        )
        assert.deepStrictEqual(yield* table, [1])
        state.failFrom = Number.POSITIVE_INFINITY
        yield* TestClock.adjust("5 seconds")
        assert.deepStrictEqual(yield* waitFor(table, (ports) => ports[0] === 2), [2])
      })
    )
  )

  it.effect("an edit made on disk while the write was being validated is not overwritten by an If-Match write", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { routesDir, state, files } = yield* start
        const file = path.join(routesDir, "a.yml")
        const { revision } = yield* files.read("routes", "a.yml")
        state.during = () => fs.writeFileSync(file, "one:\n  port: 7\n")
        const refused = yield* Effect.flip(files.write("routes", "a.yml", "one:\n  port: 2\n", { ifMatch: [revision] }))
        assert.instanceOf(refused, FilePreconditionFailed)
        assert.strictEqual(fs.readFileSync(file, "utf8"), "one:\n  port: 7\n")
        assert.deepStrictEqual(fs.readdirSync(routesDir), ["a.yml"])
      })
    )
  )
})

describe("routeWriteOutcome", () => {
  const outcome = { added: [], removed: [], changed: [] }

  it("names the other files with problems, and counts problems outside any file as such", () => {
    const other = { path: ["x"], message: "bad", file: "b.yml" }
    const docker = { path: ["y"], message: "taken", provider: "docker:local" }
    assert.strictEqual(routeWriteOutcome("a.yml", { ...outcome, issues: [] }).text, " and applied")
    assert.strictEqual(
      routeWriteOutcome("a.yml", { ...outcome, issues: [other, other] }).text,
      " and applied; 1 other route file (b.yml) has 2 problems and keeps its previous routes " +
        "(see the config/error event)"
    )
    assert.strictEqual(
      routeWriteOutcome("a.yml", { ...outcome, issues: [docker] }).text,
      " and applied; 1 problem outside the route files (see the config/error event)"
    )
    assert.strictEqual(
      routeWriteOutcome("a.yml", { ...outcome, issues: [other, docker] }).text,
      " and applied; 1 other route file (b.yml) has 1 problem and keeps its previous routes; " +
        "1 problem outside the route files (see the config/error event)"
    )
  })

  it("does not say applied when the reload validated nothing, nor hide a problem of the file itself", () => {
    const unvalidated = routeWriteOutcome("a.yml", {
      ...outcome,
      issues: [{ path: [], message: "the route files could not be validated: busy" }],
      unvalidated: ["busy"]
    })
    assert.isFalse(unvalidated.validated)
    assert.match(unvalidated.text, /^, but not applied: the route files could not be validated \(busy\)/)
    const own = routeWriteOutcome("a.yml", { ...outcome, issues: [{ path: [], message: "bad", file: "a.yml" }] })
    assert.isTrue(own.validated)
    assert.match(own.text, /^; the reload found 1 problem in it/)
  })
})
