import { spawn } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { createGatehouseClient, GatehouseClient, type RouteUptimePage } from "@gatehouse-edge/client"
import { Effect, Stream } from "effect"
import { gatehouseCommand, runCli } from "../support/Cli.js"
import { startTestServer } from "../support/TestServer.js"
import { waitFor } from "../support/WaitFor.js"

// The real server (store, monitors, the uptime sampler on the live clock), the typed clients and the `gatehouse`
// CLI as an operator runs it. Routes point at closed loopback ports: their checks fail fast, so they turn
// unhealthy within a second or two; until then they are `starting`.
const routeFiles = {
  "routes.yml":
    "api:\n  host: 127.0.0.1\n  port: 9\nweb:\n  host: 127.0.0.1\n  port: 9\nwebmail:\n  host: 127.0.0.1\n  port: 9\n"
}

describe("uptime end to end", () => {
  it.live("the Effect client, the promise client (a call and a stream), and the watcher released on break", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer({ routeFiles })
      const client = yield* Effect.service(GatehouseClient).pipe(
        Effect.provide(GatehouseClient.layer({ baseUrl: server.baseUrl, apiKey: server.apiKey }))
      )
      const page = yield* client.metrics.uptime({ query: { period: "5m", keyword: "WEB" } })
      assert.deepStrictEqual([page.total, page.data.map((r) => r.alias)], [2, ["web", "webmail"]])
      const down = yield* waitFor(
        client.metrics.uptime({ query: { period: "1h", limit: 1 } }),
        (p) => p.data[0]!.downtime > 0,
        "a sample of the route down"
      )
      assert.deepStrictEqual([down.total, down.data[0]!.alias, down.data[0]!.current_status], [3, "api", "unhealthy"])
      const frames = yield* client.metrics.watchUptime({ offset: 2 }).pipe(Stream.take(2), Stream.runCollect)
      assert.deepStrictEqual(
        frames.map((p) => p.data.map((r) => r.alias)),
        [["webmail"], ["webmail"]]
      )

      const promiseClient = createGatehouseClient({ baseUrl: server.baseUrl, apiKey: server.apiKey })
      const fromPromise = yield* Effect.promise(async () => {
        const one = await promiseClient.metrics.uptime({ limit: 1, period: "15m" })
        const watched: Array<RouteUptimePage> = []
        for await (const p of promiseClient.metrics.watchUptime({ keyword: "api" })) {
          watched.push(p)
          break
        }
        await promiseClient.close()
        return { one, watched }
      })
      assert.deepStrictEqual(
        fromPromise.one.data.map((r) => r.alias),
        ["api"]
      )
      assert.deepStrictEqual(
        fromPromise.watched.map((p) => p.total),
        [1]
      )
      yield* waitFor(server.uptimeWatchers, (n) => n === 0, "every watcher released")
    }).pipe(Effect.scoped)
  )

  it.live(
    "gatehouse uptime: a table, --json, --keyword, --limit/--offset, --watch, and errors as one line",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer({ routeFiles })
        const env = { GATEHOUSE_API_KEY: server.apiKey }
        const cli = (args: ReadonlyArray<string>) =>
          runCli(["uptime", ...args, "--server", server.origin], { cwd: server.dir, env })

        const table = yield* cli(["--period", "5m"])
        assert.strictEqual(table.code, 0, table.stderr)
        const lines = table.stdout.trimEnd().split("\n")
        assert.match(lines[0]!, /^ALIAS\s+STATUS\s+UP\s+DOWN\s+IDLE\s+AVG LATENCY\s+HISTORY/)
        assert.deepStrictEqual(
          lines.slice(1, 4).map((l) => l.split(/\s+/)[0]),
          ["api", "web", "webmail"]
        )
        assert.match(lines[4]!, /^3 routes, 5m; history: /)

        const json = yield* cli(["--json", "--keyword", "wm", "--period", "1mo"])
        assert.strictEqual(json.code, 0, json.stderr)
        const page = JSON.parse(json.stdout) as RouteUptimePage
        assert.deepStrictEqual([page.total, page.data.map((r) => r.alias)], [1, ["webmail"]])

        const paged = yield* cli(["--limit", "1", "--offset", "1"])
        assert.match(paged.stdout, /^web\s/m)
        assert.match(paged.stdout, /^1 of 3 routes, 1d;/m)

        const badLimit = yield* cli(["--limit", "0"])
        assert.strictEqual(badLimit.code, 1)
        assert.strictEqual(badLimit.stderr, 'gatehouse: invalid "limit": Expected a value between 1 and 1000\n')
        // A value the command line's parser refuses: a usage error (2), not a failure of the command (1).
        const badPeriod = yield* cli(["--period", "2h"])
        assert.strictEqual(badPeriod.code, 2)

        // --watch prints a page per sample until interrupted: two JSON lines, then Ctrl-C.
        const watched = yield* Effect.callback<ReadonlyArray<RouteUptimePage>>((resume) => {
          const child = spawn(
            process.execPath,
            gatehouseCommand(["uptime", "--watch", "--json", "--keyword", "api", "--server", server.origin]),
            { cwd: server.dir, env: { ...process.env, NODE_OPTIONS: "", ...env } }
          )
          let out = ""
          child.stdout.on("data", (chunk) => {
            out += chunk
            const done = out.split("\n").filter((l) => l !== "")
            if (done.length >= 2) {
              child.kill("SIGINT")
              resume(Effect.succeed(done.slice(0, 2).map((l) => JSON.parse(l))))
            }
          })
          return Effect.sync(() => child.kill("SIGKILL"))
        })
        assert.deepStrictEqual(
          watched.map((p) => p.data.map((r) => r.alias)),
          [["api"], ["api"]]
        )
        yield* waitFor(server.uptimeWatchers, (n) => n === 0, "the CLI's watcher released")
      }).pipe(Effect.scoped),
    // Five CLI processes, each starting Node with tsx on the sources (about 2 s each; more on a busy machine).
    90_000
  )
})
