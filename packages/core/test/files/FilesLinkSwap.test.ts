import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { UnsafePath } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { commitStaged, isStaleTempFile, stageFile } from "../../src/files/AtomicWrite.js"
import { FileSystemFailure } from "../../src/files/FileSystemFailure.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import { tempDir } from "../store/TempDir.js"
import { startFiles } from "./StartFiles.js"

const SWAPPED = "the file or its directory was replaced by a symbolic link while it was written (ELINKSWAP)"

/** A routes directory, a config file, and a directory outside both that holds a file no write may reach. */
const layout = Effect.gen(function* () {
  const dir = yield* tempDir
  const routesDir = path.join(dir, "routes")
  fs.mkdirSync(routesDir)
  const configFile = path.join(dir, "gatehouse.yml")
  fs.writeFileSync(configFile, "events: { history: 10 }\n")
  const outside = path.join(dir, "outside")
  fs.mkdirSync(outside)
  const secret = path.join(outside, "secret.yml")
  fs.writeFileSync(secret, "secret\n")
  return { routesDir, configFile, outside, secret }
})

// A validator that runs `swap` once armed (the service started: it loads the routes then), while the write of a.yml
// is validated: after the write's checks of its path, before its new content is staged (the window someone who can
// write in the routes directory has).
const swappingDuringValidation = (swap: () => void) => {
  const state = { armed: false }
  const validator = RouteValidator.of({
    ...RouteValidatorLive.inline,
    validateSources: (sources) =>
      Effect.suspend(() => {
        if (state.armed && sources.at(-1)?.file === "a.yml") {
          state.armed = false
          swap()
        }
        return RouteValidatorLive.inline.validateSources(sources)
      })
  })
  return { validator, arm: () => (state.armed = true) }
}

describe("a route file write whose path changes into a symbolic link", () => {
  it.effect(
    "is refused when the file is swapped for a link leading out after its checks: nothing outside changes",
    () =>
      Effect.gen(function* () {
        const { routesDir, configFile, secret } = yield* layout
        const file = path.join(routesDir, "a.yml")
        fs.writeFileSync(file, "one:\n  port: 1\n")
        const { validator, arm } = swappingDuringValidation(() => {
          fs.rmSync(file)
          fs.symlinkSync(secret, file)
        })
        const files = yield* startFiles(configFile, routesDir, { validator })
        arm()
        const failure = yield* Effect.flip(files.write("routes", "a.yml", "one:\n  port: 2\n"))
        assert.instanceOf(failure, UnsafePath)
        assert.strictEqual(failure.problem, SWAPPED)
        assert.strictEqual(fs.readFileSync(secret, "utf8"), "secret\n")
        assert.deepStrictEqual(fs.readdirSync(path.dirname(secret)), ["secret.yml"])
        assert.deepStrictEqual(fs.readdirSync(routesDir).filter(isStaleTempFile), [])
      }).pipe(Effect.scoped)
  )

  it.effect("is refused when a directory its link leads into is swapped for a link leading out after its checks", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, outside, secret } = yield* layout
      // a.yml is a link to sub/a.yml, inside the routes directory: allowed, and written through.
      const sub = path.join(routesDir, "sub")
      fs.mkdirSync(sub)
      fs.writeFileSync(path.join(sub, "a.yml"), "one:\n  port: 1\n")
      fs.symlinkSync(path.join(sub, "a.yml"), path.join(routesDir, "a.yml"))
      fs.writeFileSync(path.join(outside, "a.yml"), "theirs\n")
      const { validator, arm } = swappingDuringValidation(() => {
        fs.renameSync(sub, path.join(routesDir, "sub.old"))
        fs.symlinkSync(outside, sub)
      })
      const files = yield* startFiles(configFile, routesDir, { validator })
      arm()
      const failure = yield* Effect.flip(files.write("routes", "a.yml", "one:\n  port: 2\n"))
      assert.instanceOf(failure, UnsafePath)
      assert.strictEqual(failure.problem, SWAPPED)
      assert.strictEqual(fs.readFileSync(path.join(outside, "a.yml"), "utf8"), "theirs\n")
      assert.deepStrictEqual(fs.readdirSync(outside).sort(), ["a.yml", "secret.yml"])
      assert.strictEqual(fs.readFileSync(secret, "utf8"), "secret\n")
    }).pipe(Effect.scoped)
  )

  it.effect("without a swap, a link inside the directory is written through as before", () =>
    Effect.gen(function* () {
      const { routesDir, configFile } = yield* layout
      fs.mkdirSync(path.join(routesDir, "sub"))
      fs.writeFileSync(path.join(routesDir, "sub", "a.yml"), "one:\n  port: 1\n")
      fs.symlinkSync(path.join(routesDir, "sub", "a.yml"), path.join(routesDir, "a.yml"))
      const files = yield* startFiles(configFile, routesDir)
      yield* files.write("routes", "a.yml", "one:\n  port: 2\n")
      assert.isTrue(fs.lstatSync(path.join(routesDir, "a.yml")).isSymbolicLink())
      assert.strictEqual(fs.readFileSync(path.join(routesDir, "sub", "a.yml"), "utf8"), "one:\n  port: 2\n")
    }).pipe(Effect.scoped)
  )

  it.effect("is refused before anything is staged when the file or its directory already leads out", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, outside, secret } = yield* layout
      fs.symlinkSync(secret, path.join(routesDir, "a.yml"))
      fs.symlinkSync(outside, path.join(routesDir, "out"))
      fs.symlinkSync(path.join(routesDir, "out", "secret.yml"), path.join(routesDir, "b.yml"))
      const files = yield* startFiles(configFile, routesDir)
      for (const name of ["a.yml", "b.yml"]) {
        const failure = yield* Effect.flip(files.write("routes", name, "one:\n  port: 2\n"))
        assert.instanceOf(failure, UnsafePath, name)
        assert.strictEqual(failure.problem, "resolves outside its directory")
      }
      assert.strictEqual(fs.readFileSync(secret, "utf8"), "secret\n")
      assert.deepStrictEqual(fs.readdirSync(outside), ["secret.yml"])
    }).pipe(Effect.scoped)
  )

  it.effect("is refused when the file is a link to nothing: neither written through nor replaced", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, outside } = yield* layout
      const link = path.join(routesDir, "a.yml")
      fs.symlinkSync(path.join(outside, "missing.yml"), link)
      const files = yield* startFiles(configFile, routesDir)
      const failure = yield* Effect.flip(files.write("routes", "a.yml", "one:\n  port: 2\n"))
      assert.instanceOf(failure, UnsafePath)
      assert.strictEqual(
        failure.message,
        "invalid filename: the file is a symbolic link to a file that does not exist (EDANGLINGLINK)"
      )
      assert.isTrue(fs.lstatSync(link).isSymbolicLink(), "the link is left as it was")
      assert.deepStrictEqual(fs.readdirSync(outside), ["secret.yml"])
      assert.deepStrictEqual(fs.readdirSync(routesDir), ["a.yml"], "no temp file is left")
    }).pipe(Effect.scoped)
  )
})

describe("a staged write", () => {
  it.effect("is not put in place when its file became a link, or its directory one, after it was staged", () =>
    Effect.gen(function* () {
      const { routesDir, outside, secret } = yield* layout
      // The file itself swapped for a link between staging and the rename.
      const file = path.join(routesDir, "a.yml")
      fs.writeFileSync(file, "old\n")
      const linked = yield* Effect.scoped(
        Effect.gen(function* () {
          const staged = yield* stageFile(file, "new\n")
          fs.rmSync(file)
          fs.symlinkSync(secret, file)
          return yield* Effect.flip(commitStaged(staged))
        })
      )
      assert.instanceOf(linked, FileSystemFailure)
      assert.strictEqual(linked.code, "ELINKSWAP")
      assert.isTrue(fs.lstatSync(file).isSymbolicLink())
      assert.strictEqual(fs.readFileSync(secret, "utf8"), "secret\n")
      assert.deepStrictEqual(fs.readdirSync(routesDir).filter(isStaleTempFile), [])

      // Its directory moved away and a link to another put in its place: the rename would land there.
      const sub = path.join(routesDir, "sub")
      fs.mkdirSync(sub)
      fs.writeFileSync(path.join(sub, "secret.yml"), "old\n")
      const moved = yield* Effect.scoped(
        Effect.gen(function* () {
          const staged = yield* stageFile(path.join(sub, "secret.yml"), "new\n")
          fs.renameSync(sub, path.join(routesDir, "sub.old"))
          fs.symlinkSync(outside, sub)
          return yield* Effect.flip(commitStaged(staged))
        })
      )
      assert.instanceOf(moved, FileSystemFailure)
      assert.strictEqual(moved.code, "ELINKSWAP")
      assert.strictEqual(fs.readFileSync(secret, "utf8"), "secret\n")
      assert.deepStrictEqual(fs.readdirSync(outside), ["secret.yml"])
    }).pipe(Effect.scoped)
  )
})
