import { spawn } from "node:child_process"
import { Effect } from "effect"
import { gatehouseCommand } from "../../../../test/support/Cli.js"
import { freePort } from "../../../../test/support/FreePort.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { request } from "../../../transport-http/test/support/Http.js"

/** What one run of `gatehouse serve` wrote, and where it ran. */
export interface ServeRun {
  readonly dir: string
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `gatehouse <args> --http 127.0.0.1:<free port>` in a fresh directory, its stdout a pipe (as under systemd or
 * docker), until its HTTP API answers, then stops it with SIGTERM and expects exit 0. A server started quietly
 * logs nothing to wait for, so readiness is asked of the API itself. As `runCli` does: no GATEHOUSE_* from the
 * parent, and a gRPC port of its own.
 */
export const serveUntilAnswering = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir("gatehouse-serve-run-")
    const port = yield* freePort
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GATEHOUSE_")))
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, gatehouseCommand([...args, "--http", `127.0.0.1:${port}`]), {
          cwd: dir,
          env: { ...inherited, NODE_OPTIONS: "", GATEHOUSE_GRPC_ADDR: "127.0.0.1:0", ...env }
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
    const code = yield* Effect.promise(() => exited)
    if (code !== 0) return yield* Effect.die(new Error(`gatehouse exited with ${code}: ${stderr}`))
    return { dir, stdout, stderr } satisfies ServeRun
  })
