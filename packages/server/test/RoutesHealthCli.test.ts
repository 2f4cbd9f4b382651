import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient, type HealthMap, type RouteEntry } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { freePort } from "../../../test/support/FreePort.js"
import { startTestServer } from "../../../test/support/TestServer.js"
import { waitFor } from "../../../test/support/WaitFor.js"
import { cliAgainst, ctrlC, followAgainst, jsonLines } from "./support/CliAgainst.js"

// `gatehouse routes ...` and `gatehouse health` as an operator runs them: separate processes calling a real
// server's HTTP API (in this process), their output compared with what the typed client gets from the same API.
// The routes point at closed loopback ports: their checks fail fast, and they stay unhealthy.

const routeFiles = {
  "routes.yml":
    "api:\n  host: 127.0.0.1\n  port: 9\nweb:\n  host: 127.0.0.1\n  port: 10\n  healthcheck:\n    use_get: true\n"
}

const clientOf = (baseUrl: string, apiKey: string) =>
  Effect.service(GatehouseClient).pipe(Effect.provide(GatehouseClient.layer({ baseUrl, apiKey })))

// What of a route stays put while its checks run: everything but the latency and the times.
const stable = (r: RouteEntry) => ({ ...r, health: { status: r.health.status } })

/** Starts the server and waits until every route's check has failed once (statuses stop moving). */
const settledServer = Effect.gen(function* () {
  const server = yield* startTestServer({ routeFiles })
  const client = yield* clientOf(server.baseUrl, server.apiKey)
  yield* waitFor(
    client.routes.list(),
    (routes) => routes.length === 2 && routes.every((r) => r.health.status === "unhealthy"),
    "both routes unhealthy"
  )
  return { server, client, cli: cliAgainst(server) }
})

describe("gatehouse routes", () => {
  it.live(
    "list and get: a table and --json as the API answers; an unknown alias exits 1 with the API's message",
    () =>
      Effect.gen(function* () {
        const { client, cli } = yield* settledServer

        const table = yield* cli(["routes", "list"])
        assert.strictEqual(table.code, 0, table.stderr)
        const lines = table.stdout.trimEnd().split("\n")
        assert.deepStrictEqual(lines[0]!.split(/\s{2,}/), [
          "ALIAS",
          "SCHEME",
          "LISTEN",
          "TARGET",
          "HEALTH",
          "LATENCY",
          "PROVIDER"
        ])
        const rows = lines.slice(1, -1).map((line) => line.split(/\s+/))
        assert.deepStrictEqual(
          rows.map((r) => [r[0], r[1], r[2], r[3], r[4], r.at(-1)]),
          [
            ["api", "http", "-", "127.0.0.1:9", "unhealthy", "file:routes.yml"],
            ["web", "http", "-", "127.0.0.1:10", "unhealthy", "file:routes.yml"]
          ]
        )
        assert.strictEqual(lines.at(-1), "2 routes")

        const json = yield* cli(["routes", "list", "--json"])
        assert.strictEqual(json.code, 0, json.stderr)
        const fromCli = (JSON.parse(json.stdout) as ReadonlyArray<RouteEntry>).map(stable)
        assert.deepStrictEqual(fromCli, (yield* client.routes.list()).map(stable))

        const one = yield* cli(["routes", "get", "web"])
        assert.strictEqual(one.code, 0, one.stderr)
        assert.deepStrictEqual(
          one.stdout
            .trimEnd()
            .split("\n")
            .map((line) => line.split(/\s+/)[0]),
          ["alias", "scheme", "listen", "target", "provider", "excluded", "health", "healthcheck"]
        )
        assert.match(one.stdout, /^target {6}127\.0\.0\.1:10$/m)
        assert.match(one.stdout, /^health {6}unhealthy for \d+s, latency [\d.]+ ms, last check \d{4}-\d\d-\d\dT/m)
        assert.match(one.stdout, /^healthcheck GET \/ every 5s, timeout 5s, retries 3$/m)
        const oneJson = yield* cli(["routes", "get", "api", "--json"])
        assert.strictEqual(oneJson.code, 0, oneJson.stderr)
        assert.deepStrictEqual(
          stable(JSON.parse(oneJson.stdout) as RouteEntry),
          stable(yield* client.routes.get({ params: { alias: "api" } }))
        )

        const unknown = yield* cli(["routes", "get", "nope"])
        assert.strictEqual(unknown.code, 1)
        assert.strictEqual(unknown.stdout, "")
        assert.strictEqual(unknown.stderr, 'gatehouse: route "nope" not found\n')
        const missing = yield* cli(["routes", "get"])
        assert.strictEqual(missing.code, 2, missing.stderr)
        assert.match(missing.stderr, /Missing required argument: alias/)
      }).pipe(Effect.scoped),
    // Six CLI processes, each starting Node with tsx on the sources (about 2 s each; more on a busy machine).
    120_000
  )

  it.live(
    "list --watch prints the list again after a change, one JSON document a line, and Ctrl-C ends it with 0",
    () =>
      Effect.gen(function* () {
        const { server } = yield* settledServer
        const watch = yield* followAgainst(server, ["routes", "list", "--watch", "--json"])
        yield* watch.stdoutMatching(/\n/)
        // A new route file, as an editor on the server's host would write it: the watcher applies it.
        fs.writeFileSync(path.join(server.routesDir, "new.yml"), "new:\n  host: 127.0.0.1\n  port: 11\n")
        yield* watch.stdoutMatching(/"alias":"new"/)
        const end = yield* ctrlC(watch)
        assert.strictEqual(end.code, 0, end.stderr)
        assert.strictEqual(end.stderr, "")
        const lists = jsonLines(end.stdout) as ReadonlyArray<ReadonlyArray<RouteEntry>>
        // In the API's order (the readable table sorts).
        const aliases = (list: ReadonlyArray<RouteEntry>) => list.map((r) => r.alias).sort()
        assert.deepStrictEqual(aliases(lists[0]!), ["api", "web"])
        assert.deepStrictEqual(aliases(lists.at(-1)!), ["api", "new", "web"])
      }).pipe(Effect.scoped),
    90_000
  )
})

describe("gatehouse health", () => {
  it.live(
    "a table and --json as the API answers, --watch until Ctrl-C (exit 0), and a server not there exits 1",
    () =>
      Effect.gen(function* () {
        const { server, client, cli } = yield* settledServer

        const table = yield* cli(["health"])
        assert.strictEqual(table.code, 0, table.stderr)
        const lines = table.stdout.trimEnd().split("\n")
        assert.deepStrictEqual(lines[0]!.split(/\s{2,}/), ["ALIAS", "STATUS", "FOR", "LATENCY", "LAST CHECK"])
        assert.deepStrictEqual(
          lines.slice(1, -1).map((line) => line.split(/\s+/).slice(0, 2)),
          [
            ["api", "unhealthy"],
            ["web", "unhealthy"]
          ]
        )
        assert.strictEqual(lines.at(-1), "2 routes, 2 not healthy")

        const json = yield* cli(["health", "--json"])
        assert.strictEqual(json.code, 0, json.stderr)
        const statuses = (map: HealthMap) => Object.entries(map).map(([alias, info]) => [alias, info.status])
        assert.deepStrictEqual(statuses(JSON.parse(json.stdout) as HealthMap), statuses(yield* client.health.get()))

        // A new route is a change of the map: printed again, after a blank line.
        const watch = yield* followAgainst(server, ["health", "--watch"])
        yield* watch.stdoutMatching(/2 routes, 2 not healthy\n/)
        fs.writeFileSync(path.join(server.routesDir, "new.yml"), "new:\n  host: 127.0.0.1\n  port: 11\n")
        yield* watch.stdoutMatching(/\nnew +(starting|unhealthy) /)
        const end = yield* ctrlC(watch)
        assert.strictEqual(end.code, 0, end.stderr)
        assert.match(end.stdout, /^\nALIAS +STATUS +FOR +LATENCY +LAST CHECK\napi +unhealthy /)
        assert.match(end.stdout, /\n\nALIAS +STATUS +FOR +LATENCY +LAST CHECK\napi +unhealthy .*\nnew /)

        const url = `http://127.0.0.1:${yield* freePort}`
        const away = yield* cliAgainst({ ...server, origin: url })(["health"])
        assert.strictEqual(away.code, 1)
        assert.match(away.stderr, new RegExp(`^gatehouse: cannot reach the HTTP API at ${url}: ECONNREFUSED`))
      }).pipe(Effect.scoped),
    120_000
  )
})
