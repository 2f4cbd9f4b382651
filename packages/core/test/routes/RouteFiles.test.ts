import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, assert, beforeEach, describe, it } from "@effect/vitest"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { isRouteFileName, loadRouteFiles } from "../../src/routes/RouteFiles.js"

let dir = ""
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-routes-"))
})
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

const write = (name: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
  fs.writeFileSync(path.join(dir, name), text)
}

describe("loadRouteFiles", () => {
  it.effect("reads every *.yml and *.yaml file, sorted by name, not recursively", () =>
    Effect.gen(function* () {
      write("b.yaml", "web:\n  port: 81\n")
      write("a.yml", "app:\n  port: 80\nsite:\n  root: /srv\n")
      write("c.YML", "api:\n  port: 82\n")
      write("notes.txt", "not: routes\n")
      write(".hidden.yml", "hidden:\n  port: 1\n")
      write("sub/d.yml", "nested:\n  port: 83\n")
      fs.mkdirSync(path.join(dir, "dir.yml"))
      const result = yield* loadRouteFiles(dir)
      assert.deepStrictEqual(result.issues, [])
      assert.deepStrictEqual(
        result.routes.map((r) => [r.provider, r.route.alias]),
        [
          ["file:a.yml", "app"],
          ["file:a.yml", "site"],
          ["file:b.yaml", "web"],
          ["file:c.YML", "api"]
        ]
      )
      assert.strictEqual(result.routes[1]?.route.scheme, "fileserver")
    })
  )

  it.effect("reports problems with the file, line and column, and still returns the valid routes", () =>
    Effect.gen(function* () {
      write("apps.yml", "app:\n  port: 80\nweb:\n  port: 81\n  bind: 127.0.0.1\n")
      write("broken.yml", "db:\n  port: [5432\n")
      const result = yield* loadRouteFiles(dir)
      assert.deepStrictEqual(
        result.routes.map((r) => r.route.alias),
        ["app"]
      )
      assert.deepStrictEqual(result.issues.map(formatIssue).slice(0, 1), [
        "apps.yml:5:3: web.bind: `bind` is only valid for tcp and udp routes, not http"
      ])
      assert.isTrue(result.issues.slice(1).every((i) => i.file === "broken.yml" && i.line !== undefined))
      assert.isAbove(result.issues.length, 1)
    })
  )

  it.effect("checks across files: duplicate aliases and port conflicts", () =>
    Effect.gen(function* () {
      write("1-db.yml", 'db:\n  port: "5432:5432"\n')
      write("2-more.yml", 'db:\n  port: 5433\nreplica:\n  port: "5432:5432"\n')
      const result = yield* loadRouteFiles(dir)
      assert.deepStrictEqual(result.issues.map(formatIssue), [
        "2-more.yml:1:1: db: duplicate alias `db` (first defined at 1-db.yml:1:1)",
        "2-more.yml:4:9: replica.port: listening port 5432/tcp on 0.0.0.0 conflicts with route `db` (0.0.0.0, defined at 1-db.yml:1:1)"
      ])
      assert.deepStrictEqual(
        result.routes.map((r) => r.provider),
        ["file:1-db.yml"]
      )
    })
  )

  it.effect("treats a missing directory as no routes", () =>
    Effect.gen(function* () {
      const result = yield* loadRouteFiles(path.join(dir, "does-not-exist"))
      assert.deepStrictEqual(result, { routes: [], issues: [] })
    })
  )

  it.effect("reports a path that is not a directory", () =>
    Effect.gen(function* () {
      write("file", "x")
      const target = path.join(dir, "file")
      const result = yield* loadRouteFiles(target)
      assert.deepStrictEqual(result.issues, [
        { path: [], message: "cannot read the routes directory (ENOTDIR)", file: target }
      ])
    })
  )

  it.effect("refuses a file over the size limit without reading it", () =>
    Effect.gen(function* () {
      const big = `app:\n  port: 80\n${"# padding\n".repeat(20)}`
      write("big.yml", big)
      write("small.yml", "web:\n  port: 81\n")
      const result = yield* loadRouteFiles(dir, { limits: { maxBytes: 100 } })
      assert.deepStrictEqual(result.issues, [
        { path: [], message: `file is ${big.length} bytes, over the limit of 100`, file: "big.yml" }
      ])
      assert.deepStrictEqual(
        result.routes.map((r) => r.route.alias),
        ["web"]
      )
    })
  )

  it("recognizes route file names", () => {
    assert.isTrue(isRouteFileName("apps.yml"))
    assert.isTrue(isRouteFileName("apps.yaml"))
    assert.isFalse(isRouteFileName("apps.yml.bak"))
    assert.isFalse(isRouteFileName(".apps.yml"))
    assert.isFalse(isRouteFileName("apps.json"))
  })
})
