import { execFile, spawn } from "node:child_process"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { gatehouseCommand } from "../../../test/support/Cli.js"
import { requireTool } from "../../../test/support/e2e.js"
import { silentServer } from "../../../test/support/SilentServer.js"

const python = requireTool("python3")

describe("a command stopped by a signal", () => {
  it.live(
    "exits 130, not 0: an interrupted `apikey list` did not succeed",
    () =>
      Effect.gen(function* () {
        const silent = yield* silentServer
        const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_")))
        const child = spawn(
          process.execPath,
          gatehouseCommand(["apikey", "list", "--server", `http://127.0.0.1:${silent.port}`]),
          { env: { ...env, NODE_OPTIONS: "", GATEHOUSE_API_KEY: "gh_test_key" }, cwd: process.cwd() }
        )
        let stderr = ""
        child.stderr.on("data", (chunk) => (stderr += chunk))
        const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
        yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
        // Once the request is out (and will never be answered), Ctrl-C.
        yield* Effect.promise(() => silent.connected)
        child.kill("SIGINT")
        const code = yield* Effect.promise(() => exited)
        assert.strictEqual(code, 130, stderr)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live.skipIf(python.skip)(
    "Ctrl-C at hash-password's prompt stops it at once with 130, leaving nothing reading the terminal",
    () =>
      Effect.gen(function* () {
        const driver = path.join(import.meta.dirname, "support", "pty_ctrl_c.py")
        const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_")))
        const outcome = yield* Effect.callback<string>((resume) => {
          execFile(
            "python3",
            [driver, "Password:", process.execPath, ...gatehouseCommand(["hash-password"])],
            { env: { ...env, NODE_OPTIONS: "" }, timeout: 90_000 },
            (error, stdout) => resume(Effect.succeed(error === null ? stdout.trim() : String(error)))
          )
        })
        assert.strictEqual(outcome, "130")
      }),
    90_000
  )
})
