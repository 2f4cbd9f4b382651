import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { gatehouseCommand } from "../../../test/support/Cli.js"
import { requireTool } from "../../../test/support/e2e.js"
import { freePort } from "../../../test/support/FreePort.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { serveUntilAnswering } from "./support/ServeUntilAnswering.js"

const python = requireTool("python3")
const timeout = 120_000

/** As `runCli` does: no GATEHOUSE_* from the parent, and a gRPC port of its own. */
const serverEnv = (extra: Readonly<Record<string, string>>) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_"))),
  NODE_OPTIONS: "",
  GATEHOUSE_GRPC_ADDR: "127.0.0.1:0",
  ...extra
})

const adminKeyIn = (dir: string) => fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()

/** A first start of `gatehouse serve` with its stdout a pipe: what it wrote on stdout, and the key it generated. */
const firstStartPiped = (env: Readonly<Record<string, string>>) =>
  Effect.scoped(
    Effect.map(serveUntilAnswering(["serve"], env), ({ dir, stdout }) => ({
      stdout,
      key: adminKeyIn(dir),
      file: path.join(dir, "data", "admin.key")
    }))
  )

describe("the admin key on first start", () => {
  it.live(
    "a JSON log gets one line naming admin.key, never the key: every stdout line is a JSON object",
    () =>
      Effect.gen(function* () {
        const { stdout, key, file } = yield* firstStartPiped({ GATEHOUSE_LOG_FORMAT: "json" })
        assert.notInclude(stdout, key)
        const lines = stdout.split("\n").filter((line) => line !== "")
        const entries = lines.map((line) => {
          try {
            return JSON.parse(line) as { message: string; annotations?: Record<string, unknown> }
          } catch {
            return assert.fail(`not a JSON line on stdout: ${JSON.stringify(line)}\n${stdout}`)
          }
        })
        const told = entries.find((entry) => entry.message.includes("generated the admin API key"))
        assert.strictEqual(told?.annotations?.admin_key_file, file, stdout)
      }),
    timeout
  )

  it.live(
    "pretty lines piped away (format pretty, stdout not a terminal) do not get the key either",
    () =>
      Effect.gen(function* () {
        const { stdout, key, file } = yield* firstStartPiped({ GATEHOUSE_LOG_FORMAT: "pretty" })
        assert.notInclude(stdout, key)
        assert.include(stdout, `generated the admin API key: it is in ${file}`)
      }),
    timeout
  )

  it.live.skipIf(python.skip)(
    "on a terminal (format auto, as `npm start` runs it) the key is shown once, as README says",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-admin-key-tty-")
        const port = yield* freePort
        const driver = path.join(import.meta.dirname, "support", "pty_type.py")
        // Waits for the server to listen, then types Ctrl-C: the terminal stops it with SIGINT.
        const args = [driver, "listening on", "\x03", process.execPath, ...gatehouseCommand(["serve"])]
        const outcome = yield* Effect.callback<string>((resume) => {
          execFile(
            "python3",
            args,
            { cwd: dir, env: serverEnv({ GATEHOUSE_HTTP_ADDR: `127.0.0.1:${port}` }), timeout: 90_000 },
            (error, stdout) => resume(Effect.succeed(error === null ? stdout : String(error)))
          )
        })
        assert.notMatch(outcome, /^(no prompt|still running)/, outcome)
        assert.include(outcome, "Generated the admin API key (shown once", outcome)
        assert.include(outcome, adminKeyIn(dir), outcome)
      }).pipe(Effect.scoped),
    timeout
  )
})
