import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { UnsafePath } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { tempDir } from "../store/TempDir.js"
import { startFiles } from "./StartFiles.js"

describe("a config file reached through a link", () => {
  it.live("is never read, written or listed as a route file, though it lies in the routes directory", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const routesDir = path.join(dir, "routes")
      fs.mkdirSync(routesDir)
      fs.mkdirSync(path.join(dir, "etc"))
      // The config passes its own check by its path (/etc/gatehouse.yml), but the file is in the routes directory.
      // The loader refuses that layout at start; linked while the server runs, it is the files service's to catch.
      const secret =
        `routes_dir: ${routesDir}\n` +
        'auth: { oidc: { issuer: "https://idp.example", client_id: x, client_secret: TOP-SECRET, allowed_groups: [ops] } }\n'
      const configFile = path.join(dir, "etc", "gatehouse.yml")
      fs.writeFileSync(configFile, secret)
      fs.writeFileSync(path.join(routesDir, "a.yml"), "app:\n  port: 80\n")
      const files = yield* startFiles(configFile, routesDir)
      fs.writeFileSync(path.join(routesDir, "gatehouse.yml"), secret)
      fs.rmSync(configFile)
      fs.symlinkSync(path.join(routesDir, "gatehouse.yml"), configFile)
      const listed = yield* files.list
      assert.deepStrictEqual(listed.routes, ["a.yml"])
      assert.deepStrictEqual(
        listed.not_editable?.map((f) => f.filename),
        ["gatehouse.yml"]
      )
      const read = yield* Effect.flip(files.read("routes", "gatehouse.yml"))
      assert.instanceOf(read, UnsafePath)
      assert.notInclude(JSON.stringify(read), "TOP-SECRET")
      const write = yield* Effect.flip(files.write("routes", "gatehouse.yml", "app:\n  port: 81\n"))
      assert.instanceOf(write, UnsafePath)
      assert.strictEqual(fs.readFileSync(path.join(routesDir, "gatehouse.yml"), "utf8"), secret)
      // As the config file, by its own name, it is what it always was.
      assert.include((yield* files.read("config", "gatehouse.yml")).content, "TOP-SECRET")
    }).pipe(Effect.scoped)
  )
})
