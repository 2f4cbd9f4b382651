import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { FileNotFound, UnsafePath } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { tempDir } from "../store/TempDir.js"
import { startFiles } from "./StartFiles.js"

describe("a routes directory that does not exist", () => {
  it.live("is not created by a read or a listing, which answer as for a missing file; a write creates it", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const routesDir = path.join(dir, "routes")
      const configFile = path.join(dir, "gatehouse.yml")
      fs.writeFileSync(configFile, "events: { history: 10 }\n")
      const files = yield* startFiles(configFile, routesDir)
      // The route loader made it at start; an operator removed it since.
      fs.rmdirSync(routesDir)
      const read = yield* Effect.flip(files.read("routes", "a.yml"))
      assert.instanceOf(read, FileNotFound)
      assert.strictEqual(read.message, 'routes file "a.yml" not found')
      assert.isFalse(fs.existsSync(routesDir), "a read created the routes directory")
      // A bad name is still refused as one, and creates nothing either.
      assert.instanceOf(yield* Effect.flip(files.read("routes", "../a.yml")), UnsafePath)
      const listed = yield* files.list
      assert.deepStrictEqual(listed.routes, [])
      assert.isUndefined(listed.not_editable)
      assert.isFalse(fs.existsSync(routesDir), "a listing created the routes directory")
      const { written } = yield* files.write("routes", "a.yml", "app:\n  port: 80\n")
      assert.strictEqual(written.filename, "a.yml")
      assert.strictEqual(fs.readFileSync(path.join(routesDir, "a.yml"), "utf8"), "app:\n  port: 80\n")
    }).pipe(Effect.scoped)
  )
})
