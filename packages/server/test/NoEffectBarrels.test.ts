import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadedModules } from "../../client/test/support/LoadedModules.js"

// Node does not tree-shake: importing `effect` (or `effect/http`, ...) evaluates every module the barrel re-exports,
// and V8 keeps each one's source text and code. The packages import effect's modules one by one (biome's
// noRestrictedImports holds the sources to it); this proves what a process actually loads, dependencies included.
// Measured (bench/README.md, server memory): the barrels cost the idle server ~4 MiB of RSS.

/** effect's barrel modules (`dist/index.js` of the package and of its sub-barrels) among `loaded`. */
const effectBarrels = (loaded: ReadonlyArray<string>) =>
  loaded
    .map((file) => file.split(path.sep).join("/"))
    .flatMap((file) => {
      const match = /\/node_modules\/effect\/dist\/(?:([\w-]+)\/)?index\.js$/.exec(file)
      return match === null ? [] : [match[1] === undefined ? "effect" : `effect/${match[1]}`]
    })

describe("effect's barrels", () => {
  for (const specifier of [
    "@gatehouse-edge/server",
    "@gatehouse-edge/core",
    "@gatehouse-edge/transport-http",
    "@gatehouse-edge/transport-grpc",
    "@gatehouse-edge/client"
  ]) {
    it.live(
      `importing ${specifier} loads none of them (checked in a fresh node process)`,
      () =>
        Effect.gen(function* () {
          const loaded = yield* loadedModules(specifier)
          // The recorder sees effect's modules: the check below looks at the right files.
          assert.isTrue(loaded.some((file) => /\/node_modules\/effect\/dist\/Effect\.js$/.test(file)))
          assert.deepStrictEqual(effectBarrels(loaded), [])
        }),
      60_000
    )
  }

  it.live(
    "the check does catch a barrel (importing effect itself)",
    () =>
      Effect.gen(function* () {
        assert.deepStrictEqual(effectBarrels(yield* loadedModules("effect")), ["effect"])
        assert.deepStrictEqual(effectBarrels(yield* loadedModules("effect/http")), ["effect/http"])
      }),
    60_000
  )
})
