import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { sqliteDriverPackage } from "../../core/src/store/SqliteDriver.js"
import { loadedModules, serverOnlyModules } from "./support/LoadedModules.js"

describe("importing @gatehouse-edge/client", () => {
  it.live(
    "loads no server-only module (checked in a fresh node process)",
    () =>
      Effect.gen(function* () {
        const loaded = yield* loadedModules("@gatehouse-edge/client")
        // The recorder works: the client itself, its contract and `ws` (CommonJS) are in the list.
        assert.isTrue(loaded.some((file) => file.endsWith("packages/client/src/index.ts")))
        assert.isTrue(loaded.some((file) => file.endsWith("packages/contract/src/api.ts")))
        assert.isTrue(loaded.some((file) => /node_modules\/ws\/lib\/websocket\.js$/.test(file)))
        assert.deepStrictEqual(serverOnlyModules(loaded), [])
      }),
    60_000
  )

  it.live(
    "the check does catch server-only modules (the core barrel loads yaml, better-sqlite3, chokidar)",
    () =>
      Effect.gen(function* () {
        const found = serverOnlyModules(yield* loadedModules("@gatehouse-edge/core"))
        for (const pkg of ["(yaml)", `(${sqliteDriverPackage})`, "(chokidar)"]) {
          assert.isTrue(
            found.some((entry) => entry.endsWith(pkg)),
            `${pkg} not detected`
          )
        }
        assert.isTrue(found.some((entry) => entry.startsWith("packages/core/src/routes/")))
      }),
    60_000
  )
})
