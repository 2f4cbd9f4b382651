import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parse } from "yaml"
import { startTestServer } from "../../../test/support/TestServer.js"
import { request } from "../../transport-http/test/support/Http.js"
import { renderOpenApi } from "../src/OpenApiDocuments.js"

const checkedIn = (name: string) =>
  fs.readFileSync(fileURLToPath(new URL(`../../../openapi/${name}`, import.meta.url)), "utf8")

describe("OpenAPI document", () => {
  it("matches the checked-in files (run `npm run openapi` after changing the contract)", () => {
    const documents = renderOpenApi()
    assert.strictEqual(checkedIn("openapi.json"), documents.jsonText, "openapi/openapi.json is stale")
    assert.strictEqual(checkedIn("openapi.yaml"), documents.yamlText, "openapi/openapi.yaml is stale")
    assert.deepStrictEqual(parse(documents.yamlText), documents.json)
  })

  it("describes the API: OpenAPI 3.1, every path under /api/v1, the shared error body, bearer auth", () => {
    const spec = renderOpenApi().json as any
    assert.strictEqual(spec.openapi, "3.1.0")
    const paths = Object.keys(spec.paths)
    for (const p of paths) assert.match(p, /^\/api\/v1\//)
    for (const p of [
      "/api/v1/route/validate",
      "/api/v1/route/list",
      "/api/v1/route/{alias}",
      "/api/v1/health",
      "/api/v1/events"
    ]) {
      assert.include(paths, p)
    }
    assert.strictEqual(spec.components.securitySchemes.bearer.type, "http")
    assert.strictEqual(spec.components.securitySchemes.bearer.scheme.toLowerCase(), "bearer")
    const notFound = spec.paths["/api/v1/route/{alias}"].get.responses["404"].content["application/json"].schema
    const schema = spec.components.schemas[notFound.$ref.split("/").pop()]
    assert.deepStrictEqual(Object.keys(schema.properties), ["error"])
    const limit = spec.paths["/api/v1/events"].get.parameters.find((p: any) => p.name === "limit")
    assert.deepStrictEqual(limit.schema, { type: "integer", minimum: 1, maximum: 1000, default: 100 })
    const fileContent = spec.paths["/api/v1/file/content"].get.responses["200"].content
    assert.deepStrictEqual(Object.keys(fileContent), ["application/yaml"])
    assert.include(JSON.stringify(spec.components.schemas.Route), "h2c")
    assert.isTrue(spec.paths["/api/v1/health"].get["x-websocket"])
    assert.deepStrictEqual(spec.paths["/api/v1/version"].get.security ?? [], [])
  })

  it.live("is served at /api/v1/openapi.json and /api/v1/openapi.yaml without credentials", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startTestServer()
        const json = yield* request(`${server.baseUrl}/openapi.json`)
        assert.strictEqual(json.status, 200)
        assert.deepStrictEqual(json.json, renderOpenApi().json)
        const yaml = yield* request(`${server.baseUrl}/openapi.yaml`)
        assert.strictEqual(yaml.status, 200)
        assert.match(yaml.headers.get("content-type") ?? "", /^application\/yaml/)
        assert.strictEqual(yaml.text, renderOpenApi().yamlText)
      })
    )
  )
})
