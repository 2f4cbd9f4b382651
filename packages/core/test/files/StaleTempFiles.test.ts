import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { tempDir } from "../store/TempDir.js"
import { startFiles } from "./StartFiles.js"

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
