import * as fs from "node:fs"
import { syncBuiltinESMExports } from "node:module"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { FileNotFound, UnsafePath } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { checkOpenedRouteFile } from "../../src/files/OpenedRouteFile.js"
import { checkRouteFilePath } from "../../src/files/SafePaths.js"
import { readRegularFile } from "../../src/files/SafeRead.js"
import { tempDir } from "../store/TempDir.js"
import { startFiles } from "./StartFiles.js"

const SECRET = "client_secret: TOP-SECRET\n"

/** A routes directory, a config file holding a secret, and a directory outside both that holds another. */
const layout = Effect.gen(function* () {
  const dir = yield* tempDir
  const routesDir = path.join(dir, "routes")
  fs.mkdirSync(routesDir)
  const configFile = path.join(dir, "gatehouse.yml")
  fs.writeFileSync(configFile, `events: { history: 10 }\n# ${SECRET}`)
  const outside = path.join(dir, "outside")
  fs.mkdirSync(outside)
  const secret = path.join(outside, "secret.yml")
  fs.writeFileSync(secret, SECRET)
  const file = path.join(routesDir, "a.yml")
  fs.writeFileSync(file, "one:\n  port: 1\n")
  return { dir, routesDir, configFile, outside, secret, file }
})

// The read's seam (`afterReadChecks`) running `swap` once armed: after the read of a.yml has checked its path, before
// it opens the file (the window someone who can write in the routes directory has).
const swappingAfterChecks = (swap: () => void) => {
  const state = { armed: false }
  const afterReadChecks = Effect.sync(() => {
    if (!state.armed) return
    state.armed = false
    swap()
  })
  return { afterReadChecks, arm: () => (state.armed = true) }
}

const refusedRead = (error: unknown, problem: string) => {
  assert.instanceOf(error, UnsafePath)
  assert.strictEqual(error.problem, problem)
  assert.notInclude(JSON.stringify(error), "TOP-SECRET")
}

describe("a route file read whose file changes into a link after its checks", () => {
  it.effect("is refused when the file is swapped for a link leading out: the file outside is not served", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, secret, file } = yield* layout
      const { afterReadChecks, arm } = swappingAfterChecks(() => {
        fs.rmSync(file)
        fs.symlinkSync(secret, file)
      })
      const files = yield* startFiles(configFile, routesDir, { afterReadChecks })
      arm()
      refusedRead(yield* Effect.flip(files.read("routes", "a.yml")), "resolves outside its directory")
    }).pipe(Effect.scoped)
  )

  it.effect("is refused when the file is swapped for a link to the config file", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, file } = yield* layout
      const { afterReadChecks, arm } = swappingAfterChecks(() => {
        fs.rmSync(file)
        fs.symlinkSync(configFile, file)
      })
      const files = yield* startFiles(configFile, routesDir, { afterReadChecks })
      arm()
      refusedRead(yield* Effect.flip(files.read("routes", "a.yml")), "resolves outside its directory")
    }).pipe(Effect.scoped)
  )

  it.effect("is refused when swapped for a link to a config file that lies in the routes directory", () =>
    Effect.gen(function* () {
      const { dir, routesDir, file } = yield* layout
      // The config passes its own check by its path (etc/gatehouse.yml), but the file is in the routes directory.
      // The loader refuses that layout at start: here it is linked so while the server runs.
      const text = `routes_dir: ${routesDir}\n# ${SECRET}`
      fs.mkdirSync(path.join(dir, "etc"))
      const configFile = path.join(dir, "etc", "gatehouse.yml")
      fs.writeFileSync(configFile, text)
      const { afterReadChecks, arm } = swappingAfterChecks(() => {
        fs.rmSync(file)
        fs.symlinkSync(path.join(routesDir, "gatehouse.yml"), file)
      })
      const files = yield* startFiles(configFile, routesDir, { afterReadChecks })
      fs.writeFileSync(path.join(routesDir, "gatehouse.yml"), text)
      fs.rmSync(configFile)
      fs.symlinkSync(path.join(routesDir, "gatehouse.yml"), configFile)
      arm()
      refusedRead(yield* Effect.flip(files.read("routes", "a.yml")), "is the server's config file (through a link)")
      // As the config file, by its own name and through its link, it is read as it always was.
      assert.include((yield* files.read("config", "gatehouse.yml")).content, "TOP-SECRET")
    }).pipe(Effect.scoped)
  )

  it.effect("is refused when a directory its link leads through is swapped for a link leading out", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, outside, file } = yield* layout
      // a.yml is a link to sub/a.yml, inside the routes directory: allowed, and read through.
      const sub = path.join(routesDir, "sub")
      fs.mkdirSync(sub)
      fs.renameSync(file, path.join(sub, "a.yml"))
      fs.symlinkSync(path.join(sub, "a.yml"), file)
      fs.writeFileSync(path.join(outside, "a.yml"), SECRET)
      const { afterReadChecks, arm } = swappingAfterChecks(() => {
        fs.renameSync(sub, path.join(routesDir, "sub.old"))
        fs.symlinkSync(outside, sub)
      })
      const files = yield* startFiles(configFile, routesDir, { afterReadChecks })
      assert.strictEqual((yield* files.read("routes", "a.yml")).content, "one:\n  port: 1\n")
      arm()
      refusedRead(yield* Effect.flip(files.read("routes", "a.yml")), "resolves outside its directory")
    }).pipe(Effect.scoped)
  )

  it.effect("is read when the swap stays inside the directory, and a file removed after its checks is not found", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, file } = yield* layout
      fs.writeFileSync(path.join(routesDir, "b.yml"), "two:\n  port: 2\n")
      let swap = () => {
        fs.rmSync(file)
        fs.symlinkSync(path.join(routesDir, "b.yml"), file)
      }
      const seam = swappingAfterChecks(() => swap())
      const files = yield* startFiles(configFile, routesDir, { afterReadChecks: seam.afterReadChecks })
      seam.arm()
      assert.strictEqual((yield* files.read("routes", "a.yml")).content, "two:\n  port: 2\n")
      swap = () => fs.rmSync(file)
      seam.arm()
      assert.instanceOf(yield* Effect.flip(files.read("routes", "a.yml")), FileNotFound)
    }).pipe(Effect.scoped)
  )
})

describe("a route file read through a link, without a swap", () => {
  it.effect("is refused when the link leads out, to the config, or to the config's inode (a hard link)", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, outside, secret } = yield* layout
      fs.symlinkSync(secret, path.join(routesDir, "out.yml"))
      fs.symlinkSync(outside, path.join(routesDir, "dir"))
      fs.symlinkSync(path.join(routesDir, "dir", "secret.yml"), path.join(routesDir, "through.yml"))
      fs.symlinkSync(configFile, path.join(routesDir, "config.yml"))
      fs.linkSync(configFile, path.join(routesDir, "hard.yml"))
      const files = yield* startFiles(configFile, routesDir)
      for (const name of ["out.yml", "through.yml", "config.yml"]) {
        refusedRead(yield* Effect.flip(files.read("routes", name)), "resolves outside its directory")
      }
      // A hard link has no link to follow: its path is in the routes directory, its inode is the config's.
      refusedRead(yield* Effect.flip(files.read("routes", "hard.yml")), "is the server's config file (through a link)")
    }).pipe(Effect.scoped)
  )

  it.effect("is read when the link stays inside the directory; the config file is read wherever its link leads", () =>
    Effect.gen(function* () {
      const { dir, routesDir, file } = yield* layout
      fs.mkdirSync(path.join(routesDir, "sub"))
      fs.writeFileSync(path.join(routesDir, "sub", "b.yml"), "two:\n  port: 2\n")
      fs.symlinkSync(path.join(routesDir, "sub", "b.yml"), path.join(routesDir, "b.yml"))
      // The config is a link to a file in another directory.
      fs.mkdirSync(path.join(dir, "etc"))
      const configFile = path.join(dir, "etc", "gatehouse.yml")
      fs.symlinkSync(path.join(dir, "gatehouse.yml"), configFile)
      const files = yield* startFiles(configFile, routesDir)
      assert.strictEqual((yield* files.read("routes", "a.yml")).content, fs.readFileSync(file, "utf8"))
      assert.strictEqual((yield* files.read("routes", "b.yml")).content, "two:\n  port: 2\n")
      assert.include((yield* files.read("config", "gatehouse.yml")).content, "TOP-SECRET")
    }).pipe(Effect.scoped)
  )
})

// Where no /proc names an open file (macOS, the BSDs), the file opened must be the inode checked: shown here on Linux
// by a descriptor directory that does not exist.
describe("the check of an opened route file without /proc", () => {
  const readChecked = (routesDir: string, configFile: string, between: () => void = () => {}) =>
    Effect.gen(function* () {
      const checked = yield* checkRouteFilePath(routesDir, "a.yml", configFile)
      between()
      const noProc = path.join(routesDir, "no-such-fd-dir")
      return yield* readRegularFile(checked.target, 1024, checkOpenedRouteFile(checked, configFile, noProc))
    })

  it.effect("reads the file checked, and refuses one swapped for a link after the check", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, secret, file } = yield* layout
      assert.strictEqual((yield* readChecked(routesDir, configFile)).toString(), "one:\n  port: 1\n")
      const swapped = yield* Effect.flip(
        readChecked(routesDir, configFile, () => {
          fs.rmSync(file)
          fs.symlinkSync(secret, file)
        })
      )
      assert.instanceOf(swapped, UnsafePath)
      assert.strictEqual(swapped.problem, "changed between its check and its read (a link replaced?): read it again")
    }).pipe(Effect.scoped)
  )

  it.effect("refuses a file swapped for a link between the check's realpath and its look at the file", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, secret, file } = yield* layout
      // The swap happens inside the check, on its first look at the file's real path (stat or lstat).
      const promises = fs.promises as unknown as Record<"stat" | "lstat", (...args: Array<unknown>) => unknown>
      const original = { stat: promises.stat, lstat: promises.lstat }
      let armed = true
      const swappingFirst =
        (real: (...args: Array<unknown>) => unknown) =>
        (...args: Array<unknown>) => {
          if (armed && args[0] === fs.realpathSync(file)) {
            armed = false
            fs.rmSync(file)
            fs.symlinkSync(secret, file)
          }
          return real(...args)
        }
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          promises.stat = swappingFirst(original.stat)
          promises.lstat = swappingFirst(original.lstat)
          syncBuiltinESMExports()
        }),
        () =>
          Effect.sync(() => {
            promises.stat = original.stat
            promises.lstat = original.lstat
            syncBuiltinESMExports()
          })
      )
      const swapped = yield* Effect.flip(readChecked(routesDir, configFile))
      assert.isFalse(armed, "the swap happened")
      assert.instanceOf(swapped, UnsafePath)
      assert.strictEqual(swapped.problem, "changed between its check and its read (a link replaced?): read it again")
    }).pipe(Effect.scoped)
  )

  it.effect("refuses a file created after a check that found none, and a hard link to the config", () =>
    Effect.gen(function* () {
      const { routesDir, configFile, secret, file } = yield* layout
      fs.rmSync(file)
      const created = yield* Effect.flip(readChecked(routesDir, configFile, () => fs.symlinkSync(secret, file)))
      assert.instanceOf(created, UnsafePath)
      fs.rmSync(file)
      fs.linkSync(configFile, file)
      const hard = yield* Effect.flip(readChecked(routesDir, configFile))
      assert.instanceOf(hard, UnsafePath)
      assert.strictEqual(hard.problem, "is the server's config file (through a link)")
    }).pipe(Effect.scoped)
  )
})
