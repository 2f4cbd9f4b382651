import { spawn } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { GatehouseClient } from "@gatehouse-edge/client"
import { Effect } from "effect"
import { gatehouseCommand } from "../../../test/support/Cli.js"
import { type RestartableServer, startRestartableServer } from "../../../test/support/RestartableServer.js"
import { waitFor } from "../../../test/support/WaitFor.js"

// `gatehouse uptime --watch` (a follow over the typed client's stream) across a restart of a real server, in this
// process, on the same port: the CLI reconnects by itself and says so on stderr; `--no-reconnect` ends as before.

const routeFiles = { "api.yml": "api:\n  host: 127.0.0.1\n  port: 9\n" }

/** `gatehouse <args>` against `server`, its output as it comes (killed at the end of the test). */
const follow = (server: RestartableServer, args: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_")))
    const child = spawn(process.execPath, gatehouseCommand(args), {
      cwd: server.dir,
      env: { ...env, NODE_OPTIONS: "", GATEHOUSE_API_KEY: server.apiKey }
    })
    const output = { stdout: "", stderr: "" }
    child.stdout.on("data", (chunk) => (output.stdout += chunk))
    child.stderr.on("data", (chunk) => (output.stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
    const pages = () => output.stdout.split("\n").filter((line) => line !== "").length
    return { child, output, exited, pages }
  })

/** `gatehouse uptime --watch --json` against `server`. */
const watchUptime = (server: RestartableServer, extra: ReadonlyArray<string> = []) =>
  follow(server, ["uptime", "--watch", "--json", "--server", server.origin, ...extra])

const until = (check: () => boolean, what: string) => waitFor(Effect.sync(check), Boolean, what, 30_000)

describe("a follow across a server restart", () => {
  it.live(
    "reconnects by default, with a line on stderr when the connection is lost and when it is back",
    () =>
      Effect.gen(function* () {
        const server = yield* startRestartableServer({ routeFiles })
        const cli = yield* watchUptime(server)
        yield* until(() => cli.pages() >= 1, "a first page")
        yield* server.stop
        yield* until(() => cli.output.stderr.includes("connection lost"), "the notice of the lost connection")
        yield* server.start
        yield* until(() => cli.output.stderr.includes("gatehouse: reconnected"), "the notice of the reconnect")
        const before = cli.pages()
        yield* until(() => cli.pages() > before, "a page after the reconnect")
        cli.child.kill("SIGINT")
        assert.strictEqual(yield* Effect.promise(() => cli.exited), 0, cli.output.stderr)
        const notices = cli.output.stderr.trimEnd().split("\n")
        assert.match(
          notices[0]!,
          /^gatehouse: connection lost \(WebSocket closed with 1001: server shutting down\), reconnecting in \d+\.\d s$/
        )
        assert.strictEqual(notices.at(-1), "gatehouse: reconnected")
        // Refused while the server was down: said so, and retried.
        for (const line of notices.slice(1, -1)) assert.match(line, /^gatehouse: connection lost \(.*ECONNREFUSED/)
        for (const line of cli.output.stdout.trimEnd().split("\n")) assert.strictEqual(JSON.parse(line).total, 1)
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "--no-reconnect ends with the close, as before",
    () =>
      Effect.gen(function* () {
        const server = yield* startRestartableServer({ routeFiles })
        const cli = yield* watchUptime(server, ["--no-reconnect"])
        yield* until(() => cli.pages() >= 1, "a first page")
        yield* server.stop
        assert.strictEqual(yield* Effect.promise(() => cli.exited), 1)
        assert.strictEqual(cli.output.stderr, "gatehouse: the stream closed with 1001: server shutting down\n")
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "auth watch (gRPC) follows the request across the restart, then ends with its verdict",
    () =>
      Effect.gen(function* () {
        const server = yield* startRestartableServer()
        const admin = yield* Effect.service(GatehouseClient).pipe(
          Effect.provide(GatehouseClient.layer({ baseUrl: server.origin, apiKey: server.apiKey }))
        )
        const request = yield* admin.authRequests.create({
          payload: { kind: "ssh_check", ssh_check: { src: "127.0.0.1", dst: "db1", local_user: "root" } }
        })
        const cli = yield* follow(server, ["auth", "watch", request.auth_id, "--json", "--grpc", server.grpcAddress])
        yield* until(() => cli.pages() >= 1, "the pending state")
        yield* server.stop
        yield* until(() => cli.output.stderr.includes("connection lost"), "the notice of the lost connection")
        yield* server.start
        yield* until(() => cli.output.stderr.includes("gatehouse: reconnected"), "the notice of the reconnect")
        yield* admin.authRequests.approve({ payload: { auth_id: request.auth_id } })
        assert.strictEqual(yield* Effect.promise(() => cli.exited), 0, cli.output.stderr)
        // The pending state again right after the reconnect is not printed twice.
        const states = cli.output.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).state)
        assert.deepStrictEqual(states, ["pending", "approved"])
        assert.match(cli.output.stderr, /^gatehouse: connection lost \(.*\), reconnecting in \d+\.\d s\n/)
      }).pipe(Effect.scoped),
    90_000
  )
})
