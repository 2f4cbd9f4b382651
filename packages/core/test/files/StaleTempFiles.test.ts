import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Effect, Layer } from "effect"
import * as ConfigSourceLive from "../../src/config/ConfigSourceLive.js"
import { loadConfig } from "../../src/config/index.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import * as FilesLive from "../../src/files/FilesLive.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"
import { tempDir } from "../store/TempDir.js"

// Starts the files service on `configFile` and `routesDir`, which is when it clears what interrupted writes left.
const startFiles = (configFile: string, routesDir: string) =>
  Effect.gen(function* () {
    const sources = { env: {}, flags: {}, cwd: path.dirname(configFile) }
    const loaded = loadConfig({ ...sources, file: { path: configFile, text: fs.readFileSync(configFile, "utf8") } })
    if (loaded._tag === "Invalid") return yield* Effect.die(new Error(loaded.issues.map(formatIssue).join("\n")))
    yield* Layer.build(
      FilesLive.layer({ configFile, routesDir }).pipe(
        Layer.provide(FileRoutes.layer({ routesDir }).pipe(Layer.provideMerge(RoutesLive.layer))),
        Layer.provide(ConfigSourceLive.layer(loaded.config, sources)),
        Layer.provide(Layer.succeed(RouteValidator)(RouteValidatorLive.inline)),
        Layer.provide(EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory)))
      )
    )
  })

describe("temp files left by an interrupted write", () => {
  it.live("are removed at start for the route files and the config file; another program's are left alone", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      // The config sits in a shared directory (as /etc) through a symlink to where it really is.
      const etc = path.join(dir, "etc")
      const real = path.join(dir, "real")
      const routesDir = path.join(dir, "routes")
      for (const d of [etc, real, routesDir]) fs.mkdirSync(d)
      fs.writeFileSync(path.join(real, "gatehouse.yml"), `routes_dir: ${routesDir}\n`)
      fs.symlinkSync(path.join(real, "gatehouse.yml"), path.join(etc, "gatehouse.yml"))
      const left = {
        [etc]: [".gatehouse.yml.0123456789ab.tmp", ".resolv.conf.0123456789ab.tmp", "hosts"],
        [real]: [".gatehouse.yml.abcdefabcdef.tmp", ".other.yml.0123456789ab.tmp"],
        [routesDir]: [".a.yml.0123456789ab.tmp", ".notes.txt.0123456789ab.tmp", "a.yml"]
      }
      for (const [d, names] of Object.entries(left)) {
        for (const name of names) fs.writeFileSync(path.join(d, name), name === "a.yml" ? "app:\n  port: 80\n" : "x")
      }
      yield* startFiles(path.join(etc, "gatehouse.yml"), routesDir)
      assert.deepStrictEqual(fs.readdirSync(etc).sort(), [".resolv.conf.0123456789ab.tmp", "gatehouse.yml", "hosts"])
      assert.deepStrictEqual(fs.readdirSync(real).sort(), [".other.yml.0123456789ab.tmp", "gatehouse.yml"])
      assert.deepStrictEqual(fs.readdirSync(routesDir).sort(), [".notes.txt.0123456789ab.tmp", "a.yml"])
    }).pipe(Effect.scoped)
  )
})
