import * as fs from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { FileSystemFailed } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { filesLayout } from "./FilesFixtures.js"
import { startFiles } from "./StartFiles.js"

// A listing says why the routes directory cannot be read, rather than answering an empty list that hides it; a
// missing directory holds no file. (Tests run as root, whom a mode does not stop: a directory replaced by a file is
// the refusal a test can make.)
describe("GET /file/list of a routes directory the server cannot read", () => {
  it.effect("is FileSystemFailed naming the system's reason; a missing directory lists no file", () =>
    Effect.gen(function* () {
      const { routesDir, configFile } = yield* filesLayout({ "a.yml": "one:\n  port: 1\n" })
      const files = yield* startFiles(configFile, routesDir)
      assert.deepStrictEqual((yield* files.list).routes, ["a.yml"])

      fs.rmSync(routesDir, { recursive: true })
      assert.deepStrictEqual((yield* files.list).routes, [], "a missing directory holds no file")

      fs.writeFileSync(routesDir, "not a directory\n")
      const failure = yield* Effect.flip(files.list)
      assert.instanceOf(failure, FileSystemFailed)
      assert.strictEqual(
        failure.message,
        "listing of the routes directory failed: a part of the path is not a directory (ENOTDIR)"
      )
    }).pipe(Effect.scoped)
  )
})
