import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { request, sendYaml } from "./support/Http.js"
import { startHarness } from "./support/TransportHarness.js"

// The route loader loads every `*.yml` / `*.yaml` (any case) that is not hidden; the API must address what it lists.
describe("route file names", () => {
  it.live("every route file the server loads and lists can be read and written: Extra.YML, my routes.yml", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({
          routeFiles: { "a.yml": "app:\n  port: 8080\n", "Extra.YML": "other:\n  port: 81\n", "my routes.yml": "" }
        })
        const list = yield* request(`${h.baseUrl}/file/list`, { key: h.apiKey })
        assert.deepStrictEqual(list.json, {
          config: ["gatehouse.yml"],
          routes: ["Extra.YML", "a.yml", "my routes.yml"]
        })
        for (const name of ["Extra.YML", "my routes.yml"]) {
          const url = `${h.baseUrl}/file/content?type=routes&filename=${encodeURIComponent(name)}`
          const read = yield* request(url, { key: h.apiKey })
          assert.strictEqual(read.status, 200, `${name}: ${read.text}`)
          const alias = name === "Extra.YML" ? "other" : "third"
          const written = yield* sendYaml(url, h.apiKey, `${alias}:\n  port: 82\n`, { method: "PUT" })
          assert.strictEqual(written.status, 200, `${name}: ${written.text}`)
          assert.strictEqual(fs.readFileSync(path.join(h.routesDir, name), "utf8"), `${alias}:\n  port: 82\n`)
        }
        const created = yield* sendYaml(
          `${h.baseUrl}/file/content?type=routes&filename=${encodeURIComponent("New Routes.YAML")}`,
          h.apiKey,
          "fresh:\n  port: 83\n",
          { method: "PUT" }
        )
        assert.strictEqual(created.status, 200, created.text)
        const routes = yield* request(`${h.baseUrl}/route/list`, { key: h.apiKey })
        assert.sameMembers(
          routes.json.map((r: any) => r.alias),
          ["app", "other", "third", "fresh"]
        )
      })
    )
  )

  it.live("a loaded file the API cannot address by name is listed as not editable, with why", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const h = yield* startHarness({
          routeFiles: { "a.yml": "app:\n  port: 8080\n", "50%.yml": "b:\n  port: 81\n" }
        })
        const outside = path.join(path.dirname(h.routesDir), "outside.yml")
        fs.writeFileSync(outside, "c:\n  port: 82\n")
        fs.symlinkSync(outside, path.join(h.routesDir, "link.yml"))
        fs.writeFileSync(path.join(h.routesDir, "tab\there.yml"), "d:\n  port: 83\n")
        const list = yield* request(`${h.baseUrl}/file/list`, { key: h.apiKey })
        assert.deepStrictEqual(list.json, {
          config: ["gatehouse.yml"],
          routes: ["a.yml"],
          not_editable: [
            { filename: "50%.yml", problem: "encoded characters are not allowed" },
            { filename: "link.yml", problem: "resolves outside its directory" },
            { filename: "tab\there.yml", problem: "control or invisible characters are not allowed" }
          ]
        })
        const read = yield* request(`${h.baseUrl}/file/content?type=routes&filename=50%25.yml`, { key: h.apiKey })
        assert.strictEqual(read.status, 400)
        assert.strictEqual(read.json.error.details[0].problem, "encoded characters are not allowed")
      })
    )
  )
})
