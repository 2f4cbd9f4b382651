import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli, spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { waitFor } from "../../../test/support/WaitFor.js"
import { request } from "../../transport-http/test/support/Http.js"

const serveDir = tempDir("gatehouse-routes-dir-")

describe("gatehouse serve: routes_dir", () => {
  it.live(
    "a missing routes_dir is created at start and watched: a file written afterwards is loaded",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const dir = yield* serveDir
          fs.writeFileSync(path.join(dir, "c.yml"), "routes_dir: ./myroutes/nested\n")
          const routesDir = path.join(dir, "myroutes", "nested")
          const server = yield* spawnServer(["--config", "c.yml", "--http", "127.0.0.1:0"], { cwd: dir })
          assert.isTrue(fs.statSync(routesDir).isDirectory(), "created with its parents")
          assert.include(server.output.stdout, `created the routes directory ${routesDir}`)
          const key = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
          const list = request(`${server.baseUrl}/route/list`, { key })
          assert.deepStrictEqual((yield* list).json, [])

          fs.writeFileSync(path.join(routesDir, "a.yml"), "app:\n  port: 8080\n")
          const routes = yield* waitFor(
            list,
            (response) => response.json.some((route: any) => route.alias === "app"),
            "the route of a file written after the start",
            15_000
          )
          assert.strictEqual(routes.status, 200)
          const result = yield* server.stop()
          assert.strictEqual(result.code, 0, result.stderr)

          // The next start finds the directory and says nothing about it.
          const again = yield* spawnServer(["--config", "c.yml", "--http", "127.0.0.1:0"], { cwd: dir })
          assert.notInclude(again.output.stdout, "created the routes directory")
          yield* again.stop()
        })
      ),
    60_000
  )

  it.live("on embedded defaults, a routes directory that cannot be made refuses the start the same way", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        fs.writeFileSync(path.join(dir, "a-file"), "")
        const routesDir = path.join(dir, "a-file", "routes")
        const result = yield* runCli(["serve", "--http", "127.0.0.1:0"], {
          cwd: dir,
          env: { GATEHOUSE_ROUTES_DIR: routesDir }
        })
        assert.strictEqual(result.code, 1, result.stdout)
        assert.include(result.stderr, `gatehouse: no example routes written to ${path.join(routesDir, "example.yml")}`)
        assert.include(result.stderr, `gatehouse: routes_dir ${routesDir}`)
        assert.notInclude(result.stderr, "    at ", "no stack trace")
      })
    )
  )

  it.live("a routes_dir that is not a directory refuses the start, naming the key and the path", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* serveDir
        fs.writeFileSync(path.join(dir, "c.yml"), "routes_dir: ./routes.yml\n")
        fs.writeFileSync(path.join(dir, "routes.yml"), "app:\n  port: 8080\n")
        const result = yield* runCli(["serve", "--config", "c.yml", "--http", "127.0.0.1:0"], { cwd: dir })
        assert.strictEqual(result.code, 1, result.stdout)
        assert.include(result.stderr, `gatehouse: routes_dir ${path.join(dir, "routes.yml")} is not a directory`)
        assert.notInclude(result.stderr, "    at ", "no stack trace")
      })
    )
  )
})
