import { spawn } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { gatehouseCommand } from "../../../test/support/Cli.js"
import { freePort } from "../../../test/support/FreePort.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { waitFor } from "../../../test/support/WaitFor.js"
import { request } from "../../transport-http/test/support/Http.js"

/** What a server run printed on stdout, and the levels of its JSON log lines. */
interface ServeRun {
  readonly stdout: string
  readonly levels: ReadonlyArray<string>
}

/**
 * Runs `gatehouse <args>` (a `serve`, the flag placed as the test says) until its HTTP API answers, then stops it
 * with SIGTERM: a server started quietly logs nothing to wait for, so readiness is asked of the API itself.
 */
const serveOnce = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-log-level-")
      const port = yield* freePort
      // As `runCli` does: no GATEHOUSE_* from the parent, and a gRPC port of its own.
      const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GATEHOUSE_")))
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, gatehouseCommand([...args, "--http", `127.0.0.1:${port}`]), {
            cwd: dir,
            env: {
              ...inherited,
              NODE_OPTIONS: "",
              GATEHOUSE_GRPC_ADDR: "127.0.0.1:0",
              GATEHOUSE_LOG_FORMAT: "json",
              ...env
            }
          })
        ),
        (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
      )
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
      yield* waitFor(
        request(`http://127.0.0.1:${port}/api/v1/version`).pipe(
          Effect.map((reply) => reply.status),
          // Refused until the server listens; a server that exited instead fails with its output.
          Effect.catchDefect(() =>
            child.exitCode === null ? Effect.succeed(0) : Effect.die(new Error(`gatehouse exited: ${stderr}`))
          )
        ),
        (status) => status === 200,
        "the server to answer",
        60_000
      )
      child.kill("SIGTERM")
      assert.strictEqual(yield* Effect.promise(() => exited), 0, stderr)
      const levels = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line).level as string)
      return { stdout, levels } satisfies ServeRun
    })
  )

describe("gatehouse serve --log-level", () => {
  it.live(
    "the flag, after or before `serve`, wins over the config's level: no INFO line under warn or error",
    () =>
      Effect.gen(function* () {
        const after = yield* serveOnce(["serve", "--log-level", "warn"])
        assert.deepStrictEqual(
          after.levels.filter((level) => level === "INFO" || level === "DEBUG"),
          [],
          `INFO lines under serve --log-level warn:\n${after.stdout}`
        )
        const before = yield* serveOnce(["--log-level", "error", "serve"])
        assert.deepStrictEqual(
          before.levels.filter((level) => level !== "ERROR" && level !== "FATAL"),
          [],
          `lines below ERROR under --log-level error serve:\n${before.stdout}`
        )
      }),
    120_000
  )

  it.live(
    "without the flag INFO lines are printed; the flag also wins over GATEHOUSE_LOG_LEVEL",
    () =>
      Effect.gen(function* () {
        const plain = yield* serveOnce(["serve"])
        assert.include(plain.levels, "INFO", `no INFO line without the flag:\n${plain.stdout}`)
        assert.match(plain.stdout, /listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1/)
        const overEnv = yield* serveOnce(["--log-level", "info", "serve"], { GATEHOUSE_LOG_LEVEL: "warn" })
        assert.include(
          overEnv.levels,
          "INFO",
          `no INFO line under --log-level info, GATEHOUSE_LOG_LEVEL=warn:\n${overEnv.stdout}`
        )
      }),
    120_000
  )
})
