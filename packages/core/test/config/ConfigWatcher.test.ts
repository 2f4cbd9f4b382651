import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer, Logger } from "effect"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { ConfigSource } from "../../src/config/ConfigSource.js"
import * as ConfigSourceLive from "../../src/config/ConfigSourceLive.js"
import * as ConfigWatcher from "../../src/config/ConfigWatcher.js"
import { loadConfig } from "../../src/config/LoadConfig.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import { Routes } from "../../src/routes/Routes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import { failingStore } from "../events/FailingStore.js"

// The watcher on a real file system and the live clock: chokidar's events are what is under test. Waits poll what
// the reloads did, with a deadline.

/** Every log line written where `layer` is provided (fibers forked there included), as JSON. */
const collectLogs = () => {
  const lines: Array<string> = []
  const layer = Logger.layer([Logger.map(Logger.formatJson, (line) => lines.push(line))])
  return { lines, layer }
}

/** A config source whose reloads record the file's text as they found it; it has nothing else to offer. */
const recordingConfig = (file: string, seen: Array<string>) =>
  Layer.succeed(ConfigSource)(
    ConfigSource.of({
      current: Effect.die("not used"),
      validate: () => Effect.die("not used"),
      reload: Effect.sync(() => {
        // Between the unlink and the new file's creation, the file is missing: that is a reload too.
        seen.push(fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "(missing)")
        return { _tag: "Reloaded", changed: [], restartRequired: [] } as const
      })
    })
  )

/** Waits until a reload of the config found `text` in the file. */
const reloadedWith = (seen: ReadonlyArray<string>, text: string, what: string, timeoutMs?: number) =>
  waitFor(
    Effect.sync(() => seen),
    (texts) => texts.includes(text),
    what,
    timeoutMs
  )

/** A route table whose reloads are only counted. */
const countingRoutes = (reloads: { count: number }) =>
  Layer.effect(Routes)(
    Effect.map(Routes.layerTest([]).pipe(Layer.build), (context) => {
      const routes = Context.get(context, Routes)
      return Routes.of({
        ...routes,
        reload: Effect.andThen(
          Effect.sync(() => reloads.count++),
          routes.reload
        )
      })
    })
  )

describe("the config watcher", () => {
  it.live("a file it cannot watch is logged, each error once and a storm of them bounded; watching goes on", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-watcher-")
      fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 1\n")
      const reloads = { count: 0 }
      const logs = collectLogs()
      yield* Layer.build(
        ConfigWatcher.layer({ configFile: undefined, routesDir: dir, settleMs: 50 }).pipe(
          Layer.provide(countingRoutes(reloads)),
          Layer.provide(recordingConfig(path.join(dir, "a.yml"), []))
        )
      ).pipe(Effect.provide(logs.layer))
      // A symbolic link to itself cannot be watched (ELOOP), whoever runs the test: chokidar emits "error", as
      // for a file the server may not read (EACCES) or once inotify's watches run out (ENOSPC). 105 of them, more
      // than the watcher logs.
      for (let i = 0; i < 105; i++) fs.symlinkSync(`loop-${i}.yml`, path.join(dir, `loop-${i}.yml`))
      const warnings = () => logs.lines.filter((line) => line.includes("watching the config and route files"))
      yield* waitFor(
        Effect.sync(warnings),
        (lines) => lines.some((line) => line.includes("further ones are not logged")),
        "the last watch error logged"
      )
      const looping = warnings().filter((line) => line.includes("ELOOP"))
      assert.strictEqual(looping.length, 100, "the first 100 distinct errors, each once")
      assert.strictEqual(warnings().length, 101)
      assert.include(looping[0], "too many symbolic links encountered")

      const before = reloads.count
      fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 2\n")
      yield* waitFor(
        Effect.sync(() => reloads.count),
        (count) => count > before,
        "a reload after a route file changed"
      )
    }).pipe(Effect.scoped)
  )

  it.live("a failing event store is logged; the next edits of the route files and the config file reload", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-watcher-")
      const routesDir = path.join(dir, "routes")
      const configFile = path.join(dir, "gatehouse.yml")
      fs.mkdirSync(routesDir)
      fs.writeFileSync(path.join(routesDir, "a.yml"), "one:\n  port: 1\n")
      fs.writeFileSync(configFile, "events: { history: 5 }\n")
      const sources = { env: {}, flags: {}, cwd: dir }
      const loaded = loadConfig({ ...sources, file: { path: configFile, text: fs.readFileSync(configFile, "utf8") } })
      if (loaded._tag === "Invalid") return assert.fail(loaded.issues.map(formatIssue).join("\n"))
      const { store, layer: events } = failingStore()
      const core = Layer.mergeAll(
        FileRoutes.layer({ routesDir }).pipe(
          Layer.provideMerge(RoutesLive.layer),
          Layer.provide(RouteValidatorLive.layer)
        ),
        ConfigSourceLive.layer(loaded.config, sources)
      ).pipe(Layer.provide(events))
      const logs = collectLogs()
      const context = yield* Layer.build(
        ConfigWatcher.layer({ configFile, routesDir, settleMs: 50 }).pipe(Layer.provideMerge(core))
      ).pipe(Effect.provide(logs.layer))
      const routes = Context.get(context, Routes)
      const targets = Effect.map(routes.list, (records) => records.map((r) => r.route.port.target))
      const failed = Effect.sync(() => store.failures)
      const reloadEvents = (source: string) =>
        store.published.filter((e) => e.action === "reload" && (e.data as { source: string }).source === source)
      const logged = (text: string) => logs.lines.some((line) => line.includes(text))

      store.failures = 1
      fs.writeFileSync(path.join(routesDir, "a.yml"), "one:\n  port: 2\n")
      yield* waitFor(failed, (n) => n === 0, "the route edit's event attempted")
      assert.deepStrictEqual(yield* targets, [2], "applied although not announced")
      fs.writeFileSync(path.join(routesDir, "a.yml"), "one:\n  port: 3\n")
      yield* waitFor(targets, (ports) => ports[0] === 3, "the next route edit applied")
      assert.strictEqual(reloadEvents("routes").length, 1, "announced once the store works again")
      assert.isTrue(logged("route event not published"), "the lost route event logged")

      store.failures = 1
      fs.writeFileSync(configFile, "events: { history: 6 }\n")
      yield* waitFor(failed, (n) => n === 0, "the config edit's event attempted")
      fs.writeFileSync(configFile, "events: { history: 7 }\n")
      const [reloaded] = yield* waitFor(
        Effect.sync(() => reloadEvents("config")),
        (found) => found.length === 1,
        "config/reload after the next config edit"
      )
      assert.deepInclude(reloaded?.data, { changed: ["events.history"] })
      assert.isTrue(logged("config event not published"), "the lost config event logged")
    }).pipe(Effect.scoped)
  )

  it.live("a reload that dies is logged, and the next change reloads again", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-watcher-")
      const reloads = { count: 0 }
      const dying = Layer.effect(Routes)(
        Effect.map(Routes.layerTest([]).pipe(Layer.build), (context) =>
          Routes.of({
            ...Context.get(context, Routes),
            reload: Effect.suspend(() => (reloads.count++ === 0 ? Effect.die(new Error("a bug")) : Effect.void)).pipe(
              Effect.as({ added: [], removed: [], changed: [], issues: [] })
            )
          })
        )
      )
      const logs = collectLogs()
      yield* Layer.build(
        ConfigWatcher.layer({ configFile: undefined, routesDir: dir, settleMs: 50 }).pipe(
          Layer.provide(dying),
          Layer.provide(recordingConfig(path.join(dir, "a.yml"), []))
        )
      ).pipe(Effect.provide(logs.layer))
      fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 1\n")
      yield* waitFor(
        Effect.sync(() => logs.lines),
        (lines) => lines.some((line) => line.includes("reloading after a file change failed")),
        "the failed reload logged"
      )
      fs.writeFileSync(path.join(dir, "a.yml"), "one:\n  port: 2\n")
      yield* waitFor(
        Effect.sync(() => reloads.count),
        (count) => count >= 2,
        "a reload after the next change"
      )
    }).pipe(Effect.scoped)
  )

  it.live("a config file replaced (unlinked, then created again) is still watched, and so are its later edits", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-watcher-")
      const routesDir = path.join(dir, "routes")
      const configFile = path.join(dir, "gatehouse.yml")
      fs.mkdirSync(routesDir)
      fs.writeFileSync(configFile, "v1\n")
      const seen: Array<string> = []
      yield* Layer.build(
        ConfigWatcher.layer({ configFile, routesDir, settleMs: 50 }).pipe(
          Layer.provide(Routes.layerTest([])),
          Layer.provide(recordingConfig(configFile, seen))
        )
      )
      // As `git checkout` or `rm f; echo > f` do it.
      fs.unlinkSync(configFile)
      fs.writeFileSync(configFile, "v2\n")
      yield* reloadedWith(seen, "v2\n", "the replaced file reloaded")
      fs.writeFileSync(configFile, "v3\n")
      yield* reloadedWith(seen, "v3\n", "the replaced file's next edit reloaded")
    }).pipe(Effect.scoped)
  )

  it.live("the config file's directory replaced (removed, made again) is watched again, and so is the file in it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-watcher-")
      const routesDir = path.join(dir, "routes")
      const configDir = path.join(dir, "etc")
      const configFile = path.join(configDir, "gatehouse.yml")
      fs.mkdirSync(routesDir)
      fs.mkdirSync(configDir)
      fs.writeFileSync(configFile, "v1\n")
      const seen: Array<string> = []
      yield* Layer.build(
        ConfigWatcher.layer({ configFile, routesDir, settleMs: 50 }).pipe(
          Layer.provide(Routes.layerTest([])),
          Layer.provide(recordingConfig(configFile, seen))
        )
      )
      // As a deploy that replaces the whole directory does it.
      fs.rmSync(configDir, { recursive: true })
      fs.mkdirSync(configDir)
      fs.writeFileSync(configFile, "v2\n")
      yield* reloadedWith(seen, "v2\n", "the file of the new directory reloaded")
      fs.writeFileSync(configFile, "v3\n")
      yield* reloadedWith(seen, "v3\n", "the next edit in the new directory reloaded")
      // Its parent replaced with it, later: the look-out finds the new tree.
      fs.rmSync(dir, { recursive: true })
      yield* waitFor(
        Effect.sync(() => seen),
        (texts) => texts.at(-1) === "(missing)",
        "the missing file reported"
      )
      fs.mkdirSync(configDir, { recursive: true })
      fs.writeFileSync(configFile, "v4\n")
      yield* reloadedWith(seen, "v4\n", "the file of the new tree reloaded", 10_000)
    }).pipe(Effect.scoped)
  )

  it.live("a config file reached through links is followed when a link on its path is pointed elsewhere", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-watcher-")
      const routesDir = path.join(dir, "routes")
      const etc = path.join(dir, "etc")
      fs.mkdirSync(routesDir)
      fs.mkdirSync(path.join(etc, "v1"), { recursive: true })
      fs.mkdirSync(path.join(etc, "v2"))
      fs.writeFileSync(path.join(etc, "v1", "gatehouse.yml"), "v1\n")
      fs.writeFileSync(path.join(etc, "v2", "gatehouse.yml"), "v2\n")
      // etc/gatehouse.yml -> current/gatehouse.yml, current -> v1: a release switched by its `current` link.
      fs.symlinkSync("v1", path.join(etc, "current"))
      const configFile = path.join(etc, "gatehouse.yml")
      fs.symlinkSync(path.join("current", "gatehouse.yml"), configFile)
      const seen: Array<string> = []
      yield* Layer.build(
        ConfigWatcher.layer({ configFile, routesDir, settleMs: 50 }).pipe(
          Layer.provide(Routes.layerTest([])),
          Layer.provide(recordingConfig(configFile, seen))
        )
      )
      // As `ln -sfn v2 current` does it, atomically: a new link renamed over the old one.
      fs.symlinkSync("v2", path.join(etc, "current.new"))
      fs.renameSync(path.join(etc, "current.new"), path.join(etc, "current"))
      yield* reloadedWith(seen, "v2\n", "the file the switched link leads to reloaded")
      // Edited in place through the link, and appended to: the new target is watched.
      fs.writeFileSync(configFile, "v3\n")
      yield* reloadedWith(seen, "v3\n", "an edit of the new target reloaded")
      fs.appendFileSync(configFile, "more\n")
      yield* reloadedWith(seen, "v3\nmore\n", "an append to the new target reloaded")
      // Switched back: v1 is watched again.
      fs.symlinkSync("v1", path.join(etc, "current.new"))
      fs.renameSync(path.join(etc, "current.new"), path.join(etc, "current"))
      yield* reloadedWith(seen, "v1\n", "the file of the link switched back reloaded")
      fs.writeFileSync(path.join(etc, "v1", "gatehouse.yml"), "v5\n")
      yield* reloadedWith(seen, "v5\n", "an edit of the old target, current again, reloaded")
    }).pipe(Effect.scoped)
  )

  it.live("a file written in steps is reloaded once it is complete, not part-way through", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-watcher-")
      const routesDir = path.join(dir, "routes")
      const configFile = path.join(dir, "gatehouse.yml")
      fs.mkdirSync(routesDir)
      fs.writeFileSync(configFile, "")
      const seen: Array<string> = []
      yield* Layer.build(
        ConfigWatcher.layer({ configFile, routesDir, settleMs: 400, maxWaitMs: 30_000 }).pipe(
          Layer.provide(Routes.layerTest([])),
          Layer.provide(recordingConfig(configFile, seen))
        )
      )
      // A script writing a line every 50 ms for ~1 s: each step is a valid file, short of what is being written.
      const lines = Array.from({ length: 20 }, (_, i) => `line${i}: ${i}\n`)
      for (const line of lines) {
        fs.appendFileSync(configFile, line)
        yield* Effect.sleep("50 millis")
      }
      yield* waitFor(
        Effect.sync(() => seen),
        (texts) => texts.length > 0,
        "a reload"
      )
      assert.deepStrictEqual(seen, [lines.join("")], "the first reload read the whole file")
    }).pipe(Effect.scoped)
  )
})
