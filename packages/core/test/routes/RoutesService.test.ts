import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { RouteNotFound, ValidationFailed } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Fiber, Layer, Stream } from "effect"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Events } from "../../src/events/Events.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"

const services = (files: Record<string, string>, options: { readonly strict?: boolean } = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
    const layer = FileRoutes.layer({ routesDir: dir, strict: options.strict }).pipe(
      Layer.provideMerge(RoutesLive.layer),
      Layer.provide(RouteValidatorLive.layer),
      Layer.provideMerge(
        EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory))
      )
    )
    return { dir, layer }
  })

describe("Routes (file-backed route table)", () => {
  it.live("loads every route file with its provider", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { layer } = yield* services({ "a.yml": "one:\n  port: 1\n", "b.yaml": "two:\n  port: 2\n" })
        const records = yield* Context.get(yield* Layer.build(layer), Routes).list
        assert.deepStrictEqual(
          records.map((r) => [r.route.alias, r.provider]),
          [
            ["one", "file:a.yml"],
            ["two", "file:b.yaml"]
          ]
        )
      })
    )
  )

  it.live("strict: refuses to start with invalid route files, reporting every problem with its file", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { layer } = yield* services(
          { "a.yml": "one:\n  port: 99999\n", "b.yml": "two:\n  port: x\n" },
          { strict: true }
        )
        const error = yield* Effect.flip(Layer.build(layer))
        assert.instanceOf(error, ValidationFailed)
        assert.deepStrictEqual(
          error.issues.map((i) => i.file),
          ["a.yml", "b.yml"]
        )
      })
    )
  )

  it.live("reload applies a valid change, announces what changed, and keeps the table on errors", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { dir, layer } = yield* services({ "a.yml": "one:\n  port: 1\ngone:\n  port: 3\n" })
        const context = yield* Layer.build(layer)
        const routes = Context.get(context, Routes)
        const events = Context.get(context, Events)

        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 10\nnew:\n  port: 4\n")
        const reloaded = yield* routes.reload
        assert.deepStrictEqual(reloaded, { added: ["new"], removed: ["gone"], changed: ["one"], issues: [] })

        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: nope\n")
        const rejected = yield* routes.reload
        assert.deepStrictEqual(
          rejected.issues.map((i) => [i.file, i.path.join(".")]),
          [["a.yml", "one.port"]]
        )
        assert.deepStrictEqual([rejected.added, rejected.removed, rejected.changed], [[], [], []])
        assert.deepStrictEqual(
          (yield* routes.list).map((r) => r.route.alias),
          ["one", "new"]
        )
        assert.strictEqual((yield* routes.get("one")).route.port.target, 10)

        const unchanged = yield* routes.reload
        assert.strictEqual(unchanged.issues.length, 1)
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 10\nnew:\n  port: 4\n")
        assert.deepStrictEqual(yield* routes.reload, { added: [], removed: [], changed: [], issues: [] })

        const history = yield* events.history({ category: "config" })
        assert.deepStrictEqual(
          history.map((e) => [e.action, e.level]),
          [
            ["reload", "info"],
            ["error", "error"],
            ["error", "error"],
            ["reload", "info"]
          ],
          // The last reload changed no route, but it ended the problems: whoever saw the errors learns that.
          "a reload that changes nothing but ends the problems is announced"
        )
        assert.deepStrictEqual(history[0]!.data, {
          source: "routes",
          added: ["new"],
          removed: ["gone"],
          changed: ["one"]
        })
      })
    )
  )

  it.live("changes emits the table, then each new table", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { dir, layer } = yield* services({ "a.yml": "one:\n  port: 1\n" })
        const context = yield* Layer.build(layer)
        const routes = Context.get(context, Routes)
        const seen = yield* routes.changes.pipe(
          Stream.map((records) => records.map((r) => r.route.alias).join(",")),
          Stream.take(2),
          Stream.runCollect,
          Effect.forkScoped
        )
        yield* Effect.yieldNow
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 1\ntwo:\n  port: 2\n")
        yield* routes.reload
        assert.deepStrictEqual(Array.from(yield* Fiber.join(seen)), ["one", "one,two"])
      })
    )
  )

  it.live("get fails with RouteNotFound", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { layer } = yield* services({})
        const error = yield* Effect.flip(Context.get(yield* Layer.build(layer), Routes).get("x"))
        assert.instanceOf(error, RouteNotFound)
      })
    )
  )

  it.live("starts with the valid files, reports the invalid ones as config/error, and leaves them out", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { layer } = yield* services({ "a.yml": "one:\n  port: 1\n", "b.yml": "two:\n  port: x\n" })
        const context = yield* Layer.build(layer)
        const routes = Context.get(context, Routes)
        assert.deepStrictEqual(
          (yield* routes.list).map((r) => r.route.alias),
          ["one"]
        )
        const errors = yield* Context.get(context, Events).history({ category: "config" })
        const error = errors.find((e) => e.action === "error")
        assert.isDefined(error)
        assert.deepStrictEqual(
          (error!.data as { issues: ReadonlyArray<{ file?: string }> }).issues.map((i) => i.file),
          ["b.yml"]
        )
      })
    )
  )

  it.live("a file that turns invalid keeps its last good routes while the other files' changes apply", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { dir, layer } = yield* services({ "a.yml": "one:\n  port: 1\n", "b.yml": "two:\n  port: 2\n" })
        const routes = Context.get(yield* Layer.build(layer), Routes)
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 11\n")
        fs.writeFileSync(path.join(dir, "b.yml"), "two:\n  port: x\nthree:\n  port: 3\n")
        fs.writeFileSync(path.join(dir, "c.yml"), "four: {port: nope}\n")
        const outcome = yield* routes.reload
        assert.deepStrictEqual([outcome.added, outcome.removed, outcome.changed], [[], [], ["one"]])
        assert.deepStrictEqual([...new Set(outcome.issues.map((i) => i.file))], ["b.yml", "c.yml"])
        assert.deepStrictEqual(
          (yield* routes.list).map((r) => [r.route.alias, r.route.port.target, r.provider]),
          [
            ["one", 11, "file:a.yml"],
            ["two", 2, "file:b.yml"]
          ]
        )
        fs.rmSync(path.join(dir, "b.yml"))
        const removed = yield* routes.reload
        assert.deepStrictEqual(removed.removed, ["two"], "a deleted file takes its last good routes with it")
      })
    )
  )

  it.live("an edit that clashes with another file is the edited file's problem: the other keeps its routes", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const b = "x:\n  port: 2\nother:\n  port: 3\n"
        const { dir, layer } = yield* services({ "a.yml": "one:\n  port: 1\n", "b.yml": b })
        const routes = Context.get(yield* Layer.build(layer), Routes)
        // a.yml sorts first, yet it is the file that changed: its new alias x clashes with b.yml's.
        fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 1\nx:\n  port: 9\n")
        const outcome = yield* routes.reload
        assert.deepStrictEqual([...new Set(outcome.issues.map((i) => i.file))], ["a.yml"])
        const table = () =>
          Effect.map(routes.list, (list) => list.map((r) => [r.route.alias, r.route.port.target, r.provider]))
        assert.deepStrictEqual(yield* table(), [
          ["one", 1, "file:a.yml"],
          ["x", 2, "file:b.yml"],
          ["other", 3, "file:b.yml"]
        ])
        // Once b.yml gives x up, a.yml's edit applies.
        fs.writeFileSync(path.join(dir, "b.yml"), "other:\n  port: 3\n")
        assert.deepStrictEqual((yield* routes.reload).issues, [])
        assert.deepStrictEqual(yield* table(), [
          ["one", 1, "file:a.yml"],
          ["x", 9, "file:a.yml"],
          ["other", 3, "file:b.yml"]
        ])
      })
    )
  )
})
