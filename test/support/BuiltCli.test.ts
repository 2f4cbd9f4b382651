import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { buildState } from "./BuiltCli.js"
import { tempDir } from "./TempDir.js"

/** A tree of two packages whose sources were last changed at t=1000 s and whose builds were written at t=2000 s. */
const builtTree = Effect.gen(function* () {
  const root = yield* tempDir("gatehouse-built-")
  const at = (file: string, seconds: number) => fs.utimesSync(file, seconds, seconds)
  for (const name of ["core", "server"]) {
    const pkg = path.join(root, "packages", name)
    fs.mkdirSync(path.join(pkg, "src/routes"), { recursive: true })
    fs.mkdirSync(path.join(pkg, "dist"))
    for (const file of ["package.json", "src/index.ts", "src/routes/Routes.ts"])
      fs.writeFileSync(path.join(pkg, file), "")
    for (const file of ["index.js", "index.d.ts"]) fs.writeFileSync(path.join(pkg, "dist", file), "")
    for (const entry of ["package.json", "src/index.ts", "src/routes/Routes.ts", "src/routes", "src"])
      at(path.join(pkg, entry), 1000)
    for (const file of ["index.js", "index.d.ts"]) at(path.join(pkg, "dist", file), 2000)
  }
  return { root, at, pkg: (name: string, ...rest: Array<string>) => path.join(root, "packages", name, ...rest) }
})

describe("buildState: whether the tests can run the built CLI", () => {
  it.effect("current when every package was built after its last change", () =>
    Effect.gen(function* () {
      const { root } = yield* builtTree
      assert.strictEqual(buildState(root), "current")
    })
  )

  it.effect("stale when a source file of one package changed after its build", () =>
    Effect.gen(function* () {
      const { root, at, pkg } = yield* builtTree
      at(pkg("core", "src/routes/Routes.ts"), 3000)
      assert.strictEqual(buildState(root), "stale")
    })
  )

  it.effect("stale when a source file was deleted after the build (its directory changed)", () =>
    Effect.gen(function* () {
      const { root, pkg } = yield* builtTree
      fs.rmSync(pkg("server", "src/routes/Routes.ts"))
      assert.strictEqual(buildState(root), "stale")
    })
  )

  it.effect("stale when one output is older than a change (a build that stopped half-way)", () =>
    Effect.gen(function* () {
      const { root, at, pkg } = yield* builtTree
      at(pkg("server", "dist/index.d.ts"), 500)
      assert.strictEqual(buildState(root), "stale")
    })
  )

  it.effect("stale when another package was built after the server, whose program bundles it", () =>
    Effect.gen(function* () {
      const { root, at, pkg } = yield* builtTree
      at(pkg("core", "dist/index.js"), 3000)
      assert.strictEqual(buildState(root), "stale")
    })
  )

  it.effect("missing when a package has no dist/ or an empty one", () =>
    Effect.gen(function* () {
      const { root, pkg } = yield* builtTree
      for (const file of fs.readdirSync(pkg("core", "dist"))) fs.rmSync(pkg("core", "dist", file))
      assert.strictEqual(buildState(root), "missing")
      fs.rmdirSync(pkg("core", "dist"))
      assert.strictEqual(buildState(root), "missing")
    })
  )
})
