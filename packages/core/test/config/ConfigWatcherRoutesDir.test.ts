import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Logger } from "effect"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { ConfigSource } from "../../src/config/ConfigSource.js"
import * as ConfigWatcher from "../../src/config/ConfigWatcher.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import { failingStore } from "../events/FailingStore.js"

// The routes directory itself removed, made again or replaced, on a real file system with the live clock: chokidar's
// and fs.watch's events are what is under test. Waits poll the route table, the published events or the log, with a
// deadline.

const noConfigFile = Layer.succeed(ConfigSource)(
  ConfigSource.of({
    current: Effect.die("not used"),
    validate: () => Effect.die("not used"),
    reload: Effect.die("not used")
  })
)

const routeFile = (port: number) => `app:\n  port: ${port}\n`

/**
 * The route files of `<tmp>/routes` as the server serves them (file provider, route table, events) with the watcher
 * on them; `app` in `a.yml` on port 1 to begin with.
 */
const watchedRoutes = (options: { readonly goneWaitMs: number }) =>
  Effect.gen(function* () {
    const parent = yield* tempDir("gatehouse-routes-dir-")
    const routesDir = path.join(parent, "routes")
    fs.mkdirSync(routesDir)
    fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(1))
    const { store, layer: events } = failingStore()
    const table = FileRoutes.layer({ routesDir }).pipe(
      Layer.provideMerge(RoutesLive.layer),
      Layer.provide(RouteValidatorLive.layer),
      Layer.provide(events)
    )
    const lines: Array<string> = []
    const context = yield* Layer.build(
      ConfigWatcher.layer({ configFile: undefined, routesDir, settleMs: 50, ...options }).pipe(
        Layer.provideMerge(table),
        Layer.provide(noConfigFile)
      )
    ).pipe(Effect.provide(Logger.layer([Logger.map(Logger.formatJson, (line) => lines.push(line))])))
    const routes = Context.get(context, Routes)
    return {
      parent,
      routesDir,
      /** Each route's alias and target port, by alias. */
      ports: Effect.map(routes.list, (records) => records.map((r) => `${r.route.alias}:${r.route.port.target}`).sort()),
      /** What each `config/reload` of the routes announced. */
      reloads: Effect.sync(() =>
        store.published.flatMap((event) => {
          if (event.action !== "reload" || event.data.source !== "routes") return []
          const { added, removed, changed } = event.data
          return [{ added, removed, changed }]
        })
      ),
      logged: (text: string) => Effect.sync(() => lines.some((line) => line.includes(text)))
    }
  })

describe("the config watcher and the routes directory itself", () => {
  it.live("removed and made again at once (rm -rf, mkdir, cp): read once, never emptied, and watched again", () =>
    Effect.gen(function* () {
      const { routesDir, ports, reloads } = yield* watchedRoutes({ goneWaitMs: 5000 })
      fs.rmSync(routesDir, { recursive: true })
      fs.mkdirSync(routesDir)
      fs.writeFileSync(path.join(routesDir, "b.yml"), "web:\n  port: 2\n")
      yield* waitFor(ports, (found) => found.join() === "web:2", "the new directory's routes")
      assert.deepStrictEqual(yield* reloads, [{ added: ["web"], removed: ["app"], changed: [] }], "one reload")

      fs.writeFileSync(path.join(routesDir, "b.yml"), "web:\n  port: 3\n")
      yield* waitFor(ports, (found) => found.join() === "web:3", "an edit in the new directory")
      fs.writeFileSync(path.join(routesDir, "c.yml"), "db:\n  port: 4\n")
      yield* waitFor(ports, (found) => found.join() === "db:4,web:3", "a file added to the new directory")
    }).pipe(Effect.scoped)
  )

  it.live("gone for a moment: waited for, its routes kept, then the directory that came back is read and watched", () =>
    Effect.gen(function* () {
      const { routesDir, ports, reloads, logged } = yield* watchedRoutes({ goneWaitMs: 30_000 })
      fs.rmSync(routesDir, { recursive: true })
      // Whichever the watcher did about it: wait for the directory, or read it as empty.
      const [, during] = yield* waitFor(
        Effect.all([logged("; waiting"), ports]),
        ([waiting, found]) => waiting || found.length === 0,
        "the watcher seeing the directory gone"
      )
      assert.deepStrictEqual(during, ["app:1"], "the routes kept while it is gone")
      fs.mkdirSync(routesDir)
      fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(2))
      yield* waitFor(ports, (found) => found.join() === "app:2", "the directory that came back read")
      assert.deepStrictEqual(yield* reloads, [{ added: [], removed: [], changed: ["app"] }], "one reload")

      fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(3))
      yield* waitFor(ports, (found) => found.join() === "app:3", "an edit in the directory that came back")
    }).pipe(Effect.scoped)
  )

  it.live("made again empty, then filled a moment later (a restore): still waited for, read once when filled", () =>
    Effect.gen(function* () {
      const { routesDir, ports, reloads, logged } = yield* watchedRoutes({ goneWaitMs: 30_000 })
      fs.rmSync(routesDir, { recursive: true })
      yield* waitFor(logged("; waiting"), (waiting) => waiting, "the watcher waiting for the directory")
      fs.mkdirSync(routesDir)
      // The restore's own pause between making the directory and filling it, longer than the watcher's polls and
      // its settle time: a scenario, not a wait for the watcher (the outcome must not depend on it).
      yield* Effect.sleep("400 millis")
      assert.deepStrictEqual(yield* ports, ["app:1"], "an empty directory made again does not empty the table")
      fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(2))
      yield* waitFor(ports, (found) => found.join() === "app:2", "the filled directory read")
      assert.deepStrictEqual(yield* reloads, [{ added: [], removed: [], changed: ["app"] }], "one reload")
    }).pipe(Effect.scoped)
  )

  it.live("swapped for another by rename: the new one is read once and watched, the old one no longer", () =>
    Effect.gen(function* () {
      const { parent, routesDir, ports, reloads } = yield* watchedRoutes({ goneWaitMs: 5000 })
      const next = path.join(parent, "routes.new")
      const old = path.join(parent, "routes.old")
      fs.mkdirSync(next)
      fs.writeFileSync(path.join(next, "a.yml"), routeFile(2))
      fs.renameSync(routesDir, old)
      fs.renameSync(next, routesDir)
      yield* waitFor(ports, (found) => found.join() === "app:2", "the swapped-in directory read")
      assert.deepStrictEqual(yield* reloads, [{ added: [], removed: [], changed: ["app"] }], "one reload")

      fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(3))
      yield* waitFor(ports, (found) => found.join() === "app:3", "an edit in the swapped-in directory")
      fs.writeFileSync(path.join(routesDir, "b.yml"), "web:\n  port: 4\n")
      yield* waitFor(ports, (found) => found.join() === "app:3,web:4", "a file added to the swapped-in directory")
      // What the old directory does is no longer the routes: its edit changes nothing, whenever it would be seen.
      fs.writeFileSync(path.join(old, "a.yml"), routeFile(9))
      fs.writeFileSync(path.join(routesDir, "b.yml"), "web:\n  port: 5\n")
      yield* waitFor(ports, (found) => found.join() === "app:3,web:5", "the edit after the old directory's")
    }).pipe(Effect.scoped)
  )

  it.live("gone for good: its routes are removed, nothing fails, and a directory made later is read and watched", () =>
    Effect.gen(function* () {
      const { routesDir, ports, reloads, logged } = yield* watchedRoutes({ goneWaitMs: 200 })
      fs.rmSync(routesDir, { recursive: true })
      yield* waitFor(ports, (found) => found.length === 0, "the routes of the directory removed")
      assert.deepStrictEqual(yield* reloads, [{ added: [], removed: ["app"], changed: [] }])

      fs.mkdirSync(routesDir)
      fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(2))
      yield* waitFor(ports, (found) => found.join() === "app:2", "the directory made later read")
      fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(3))
      yield* waitFor(ports, (found) => found.join() === "app:3", "an edit in the directory made later")
      assert.isTrue(yield* logged(": its routes are removed"), "the removal logged")
    }).pipe(Effect.scoped)
  )

  it.live(
    "its parent removed and made again later (a deploy replacing the tree): read, and its replacements seen",
    () =>
      Effect.gen(function* () {
        const { parent, routesDir, ports } = yield* watchedRoutes({ goneWaitMs: 200 })
        fs.rmSync(parent, { recursive: true })
        yield* waitFor(ports, (found) => found.length === 0, "the routes of the directory removed")
        // The parent that was watched is gone: only a look-out finds the tree made again, after the wait.
        fs.mkdirSync(routesDir, { recursive: true })
        fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(2))
        yield* waitFor(ports, (found) => found.join() === "app:2", "the directory of the new parent read", 10_000)
        // The new parent is watched: the directory swapped by rename in it (which the directory's own watch cannot see).
        const next = path.join(parent, "routes.new")
        fs.mkdirSync(next)
        fs.writeFileSync(path.join(next, "a.yml"), routeFile(3))
        fs.renameSync(routesDir, path.join(parent, "routes.old"))
        fs.renameSync(next, routesDir)
        yield* waitFor(ports, (found) => found.join() === "app:3", "the directory swapped in the new parent read")
      }).pipe(Effect.scoped)
  )
  it.live("its parent removed and made again at once (its inode back): read, and its replacements seen", () =>
    Effect.gen(function* () {
      const { parent, routesDir, ports } = yield* watchedRoutes({ goneWaitMs: 2000 })
      // Made again at once, the parent usually gets its inode back (ext4, tmpfs): by identity it did not change.
      fs.rmSync(parent, { recursive: true })
      fs.mkdirSync(routesDir, { recursive: true })
      fs.writeFileSync(path.join(routesDir, "a.yml"), routeFile(2))
      yield* waitFor(ports, (found) => found.join() === "app:2", "the directory of the new parent read", 10_000)
      const next = path.join(parent, "routes.new")
      fs.mkdirSync(next)
      fs.writeFileSync(path.join(next, "a.yml"), routeFile(3))
      fs.renameSync(routesDir, path.join(parent, "routes.old"))
      fs.renameSync(next, routesDir)
      yield* waitFor(ports, (found) => found.join() === "app:3", "the directory swapped in the new parent read")
    }).pipe(Effect.scoped)
  )
})
