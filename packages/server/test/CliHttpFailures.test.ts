import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../../../test/support/Cli.js"
import { freePort } from "../../../test/support/FreePort.js"
import { tempDir } from "../../core/test/store/TempDir.js"

/** A loopback HTTP server answering every request with `status` and `body`; the paths it was asked for. */
const fakeServer = (status: number, body: unknown) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ url: string; paths: Array<string>; server: http.Server }>((resolve) => {
          const paths: Array<string> = []
          const server = http.createServer((request, response) => {
            paths.push(request.url ?? "")
            response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
          })
          server.listen(0, "127.0.0.1", () =>
            resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, paths, server })
          )
        })
    ),
    ({ server }) => Effect.sync(() => server.close())
  )

const key = { GATEHOUSE_API_KEY: "gh_test_key" }

describe("the CLI's HTTP failures, in one line each", () => {
  it.live(
    "a 500 says the status, the server's message and the request id, not that the server cannot be reached",
    () =>
      Effect.gen(function* () {
        const server = yield* fakeServer(500, {
          error: { code: "internal", message: "internal error", request_id: "req-abc123" }
        })
        const run = yield* runCli(["apikey", "list", "--server", server.url], { env: key })
        assert.strictEqual(run.code, 1)
        assert.strictEqual(
          run.stderr.trim(),
          "gatehouse: the server answered 500: internal error (request id req-abc123: the server's log has the cause)"
        )
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a server that is not there: cannot reach it, and why (ECONNREFUSED)",
    () =>
      Effect.gen(function* () {
        const url = `http://127.0.0.1:${yield* freePort}`
        const run = yield* runCli(["apikey", "list", "--server", url], { env: key })
        assert.strictEqual(run.code, 1)
        assert.match(run.stderr, new RegExp(`^gatehouse: cannot reach the HTTP API at ${url}: ECONNREFUSED`))
      }),
    60_000
  )

  it.live(
    "with --server and a key, the local config is not read (its secrets need not be set)",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        fs.writeFileSync(
          path.join(dir, "gatehouse.yml"),
          "auth:\n  oidc:\n    issuer: https://id.example.com\n    client_id: gatehouse\n" +
            "    client_secret: ${OIDC_SECRET}\n"
        )
        const server = yield* fakeServer(200, [])
        const run = yield* runCli(["apikey", "list", "--server", server.url], { env: key, cwd: dir })
        assert.strictEqual(run.code, 0, run.stderr)
        assert.deepStrictEqual(server.paths, ["/api/v1/apikeys"])
      }).pipe(Effect.scoped),
    60_000
  )
})
