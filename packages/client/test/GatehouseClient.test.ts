import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient } from "@gatehouse-edge/client"
import { Effect, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { startTestServer } from "../../../test/support/TestServer.js"
import { clientFor, routeFile } from "./support/Clients.js"

describe("every group answers", () => {
  it.live("system, routes, health, events, files", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles: { "app.yml": routeFile("app") } })
      const client = yield* clientFor(server.baseUrl, server.apiKey)

      assert.deepStrictEqual(yield* client.system.version(), { version: "0.0.0-test", commit: "test" })
      const openApi = yield* client.system.openapiJson()
      assert.strictEqual(openApi.openapi, "3.1.0")
      assert.include(yield* client.system.openapiYaml(), "openapi: 3.1.0")

      const routes = yield* client.routes.list()
      assert.deepStrictEqual(
        routes.map((r) => [r.alias, r.provider, r.excluded]),
        [["app", "file:app.yml", false]]
      )
      const app = yield* client.routes.get({ params: { alias: "app" } })
      assert.strictEqual(app.port?.target, 9)
      const validated = yield* client.routes.validate({ payload: "web:\n  port: 8080\n" })
      assert.strictEqual(validated.valid, true)
      assert.deepStrictEqual(
        validated.routes.map((r) => [r.alias, r.scheme, r.port?.target]),
        [["web", "http", 8080]]
      )

      const health = yield* client.health.get()
      assert.deepStrictEqual(Object.keys(health), ["app"])

      const events = yield* client.events.list()
      assert.isArray(events)
      const limited = yield* client.events.list({ query: { limit: 1 } })
      assert.isAtMost(limited.length, 1)

      assert.deepStrictEqual(yield* client.files.list(), { config: [], routes: ["app.yml"] })
      assert.strictEqual(yield* client.files.read({ query: { type: "routes", filename: "app.yml" } }), routeFile("app"))
      const checked = yield* client.files.validate({ query: { type: "routes" }, payload: routeFile("web") })
      assert.deepStrictEqual(
        checked.routes?.map((r) => r.alias),
        ["web"]
      )
      const written = yield* client.files.write({
        query: { type: "routes", filename: "web.yml" },
        payload: routeFile("web")
      })
      assert.deepInclude(written, { type: "routes", filename: "web.yml", bytes: routeFile("web").length })
      assert.strictEqual(fs.readFileSync(path.join(server.routesDir, "web.yml"), "utf8"), routeFile("web"))
    }).pipe(Effect.scoped)
  )

  it.live("takes the server origin or the URL it prints (…/api/v1), with or without a trailing slash", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      for (const baseUrl of [server.origin, `${server.origin}/`, server.baseUrl, `${server.baseUrl}/`]) {
        const client = yield* clientFor(baseUrl, server.apiKey)
        assert.strictEqual((yield* client.system.version()).version, "0.0.0-test")
        assert.deepStrictEqual(yield* client.routes.list(), [])
      }
    }).pipe(Effect.scoped)
  )

  it.live("runs on an HttpClient of the caller's choosing, with a Redacted key", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      let requests = 0
      const counting = HttpClient.HttpClient.pipe(
        Effect.map((http) =>
          HttpClient.mapRequest(http, (request) => {
            requests++
            return HttpClientRequest.setHeader(request, "x-request-id", `test-${requests}`)
          })
        )
      )
      const client = yield* Effect.service(GatehouseClient).pipe(
        Effect.provide(
          GatehouseClient.layerWithoutHttpClient({ baseUrl: server.origin, apiKey: Redacted.make(server.apiKey) })
        ),
        Effect.provideServiceEffect(HttpClient.HttpClient, counting),
        Effect.provide(FetchHttpClient.layer)
      )
      const [entries, response] = yield* client.api.routes.list({ responseMode: "decoded-and-response" })
      assert.deepStrictEqual(entries, [])
      assert.strictEqual(response.headers["x-request-id"], "test-1")
      assert.strictEqual(requests, 1)
    }).pipe(Effect.scoped)
  )
})

describe("typed errors", () => {
  it.live("404: RouteNotFound, FileNotFound", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const route = yield* Effect.flip(client.routes.get({ params: { alias: "nope" } }))
      assert.strictEqual(route._tag, "RouteNotFound")
      if (route._tag === "RouteNotFound") assert.strictEqual(route.alias, "nope")
      assert.strictEqual(route.message, 'route "nope" not found')
      const file = yield* Effect.flip(client.files.read({ query: { type: "routes", filename: "nope.yml" } }))
      assert.strictEqual(file._tag, "FileNotFound")
      if (file._tag === "FileNotFound") assert.deepStrictEqual([file.type, file.filename], ["routes", "nope.yml"])
    }).pipe(Effect.scoped)
  )

  it.live("400: InvalidYaml with line and column", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const error = yield* Effect.flip(client.routes.validate({ payload: "a: [" }))
      assert.strictEqual(error._tag, "InvalidYaml")
      if (error._tag !== "InvalidYaml") return
      assert.strictEqual(error.issues[0]?.line, 1)
      assert.strictEqual(error.issues[0]?.column, 5)
    }).pipe(Effect.scoped)
  )

  it.live("400: UnsafePath for a path that leaves the routes directory", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const error = yield* Effect.flip(client.files.read({ query: { type: "routes", filename: "../gatehouse.yml" } }))
      assert.strictEqual(error._tag, "UnsafePath")
      if (error._tag === "UnsafePath") assert.strictEqual(error.parameter, "filename")
    }).pipe(Effect.scoped)
  )

  it.live("422: ValidationFailed with every problem", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const error = yield* Effect.flip(
        client.routes.validate({ payload: "a:\n  port: 99999\nb:\n  scheme: gopher\n  port: 80\n" })
      )
      assert.strictEqual(error._tag, "ValidationFailed")
      if (error._tag !== "ValidationFailed") return
      assert.deepStrictEqual(
        error.issues.map((i) => i.path),
        [
          ["a", "port"],
          ["b", "scheme"]
        ]
      )
      assert.strictEqual(error.message, "validation failed: 2 problems")
      const file = yield* Effect.flip(client.files.validate({ query: { type: "routes" }, payload: "a:\n  port: -1\n" }))
      assert.strictEqual(file._tag, "ValidationFailed")
    }).pipe(Effect.scoped)
  )

  it.live("401: Unauthenticated for a wrong key; public endpoints still answer", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, "gh_00000000_wrong")
      const calls: Array<Effect.Effect<unknown, { readonly _tag: string }>> = [
        client.routes.list(),
        client.health.get(),
        client.events.list(),
        client.files.list()
      ]
      for (const call of calls) {
        const error = yield* Effect.flip(call)
        assert.strictEqual(error._tag, "Unauthenticated")
      }
      assert.strictEqual((yield* client.system.version()).version, "0.0.0-test")
    }).pipe(Effect.scoped)
  )

  it.live("a request the contract rejects fails before sending, with a SchemaError", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer()
      const client = yield* clientFor(server.baseUrl, server.apiKey)
      const error = yield* Effect.flip(client.routes.get({ params: { alias: "Not An Alias" } }))
      assert.strictEqual(error._tag, "SchemaError")
    }).pipe(Effect.scoped)
  )
})
