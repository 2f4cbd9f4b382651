import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { gatehouseCommand } from "../../../test/support/Cli.js"
import { freePort } from "../../../test/support/FreePort.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { waitFor } from "../../../test/support/WaitFor.js"

const failedLogNote = /cannot write the log to stdout \((EPIPE|ENOSPC)\)/
const failedLogNotes = (stderr: string) => stderr.split("\n").filter((line) => failedLogNote.test(line)).length

/**
 * `gatehouse serve` on a free port of its own, with its stdout on `stdout` (a pipe this side closes at once, or a
 * file descriptor) and its stderr collected. Killed when the scope closes, if still running.
 */
const serveWithStdout = (stdout: "closed pipe" | number) =>
  Effect.gen(function* () {
    const dir = yield* tempDir("gatehouse-log-failure-")
    fs.mkdirSync(path.join(dir, "routes"))
    const port = yield* freePort
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_")))
    const args = ["serve", "--http", `127.0.0.1:${port}`, "--data", path.join(dir, "data")]
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, gatehouseCommand(args), {
          cwd: dir,
          env: { ...env, NODE_OPTIONS: "", GATEHOUSE_GRPC_ADDR: "127.0.0.1:0", GATEHOUSE_LOG_FORMAT: "json" },
          stdio: ["ignore", stdout === "closed pipe" ? "pipe" : stdout, "pipe"]
        })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    // Every line the server logs from its first on meets a pipe with no reader: EPIPE.
    if (stdout === "closed pipe") child.stdout!.destroy()
    let stderr = ""
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    let exit: string | undefined
    // "close", not "exit": by then all of its stderr has been read.
    child.on("close", (code, signal) => (exit = `exited (code ${code}, signal ${signal})`))
    const versionStatus = Effect.promise(() =>
      fetch(`http://127.0.0.1:${port}/api/v1/version`).then(
        (response) => response.status,
        () => 0
      )
    )
    return {
      versionStatus,
      stop: Effect.sync(() => child.kill("SIGTERM")),
      /** How the process ended, or `undefined` while it runs. */
      exit: () => exit,
      stderr: () => stderr
    }
  })

const keepsServing = (stdout: "closed pipe" | number) =>
  Effect.gen(function* () {
    const server = yield* serveWithStdout(stdout)
    yield* waitFor(
      Effect.map(server.versionStatus, (status) => status === 200 || server.exit() !== undefined),
      (done) => done,
      "the server to answer or exit",
      30_000
    )
    // Its first log lines (the start, the admin key, "listening on") have failed by the time stderr tells of it:
    // the moment a server that ends on a failed log write ended.
    yield* waitFor(
      Effect.sync(() => failedLogNote.test(server.stderr()) || server.exit() !== undefined),
      (done) => done,
      "the note that the log cannot be written, or an exit"
    )
    assert.isUndefined(server.exit(), server.stderr())
    // Requests go on being answered, and the access-log lines they make fail as well.
    for (let request = 0; request < 5; request++) assert.strictEqual(yield* server.versionStatus, 200)
    assert.isUndefined(server.exit(), server.stderr())
    // Stopped, it writes what its log still holds (those requests' lines) before it exits, and exits as a server
    // stopped by SIGTERM does: every line has failed by then, and stderr has said so once.
    yield* server.stop
    yield* waitFor(Effect.sync(server.exit), (exit) => exit !== undefined, "the server to stop")
    assert.strictEqual(server.exit(), "exited (code 0, signal null)", server.stderr())
    assert.strictEqual(failedLogNotes(server.stderr()), 1, server.stderr())
  })

describe("`gatehouse serve` with a log it cannot write", () => {
  it.live("keeps serving when the reader of its stdout is gone (EPIPE), and says so once on stderr", () =>
    keepsServing("closed pipe").pipe(Effect.scoped)
  )

  it.live.skipIf(!fs.existsSync("/dev/full"))(
    "keeps serving when its stdout is a file on a full disk (/dev/full: ENOSPC), and says so once on stderr",
    () =>
      Effect.gen(function* () {
        const full = yield* Effect.acquireRelease(
          Effect.sync(() => fs.openSync("/dev/full", "w")),
          (fd) => Effect.sync(() => fs.closeSync(fd))
        )
        yield* keepsServing(full)
      }).pipe(Effect.scoped)
  )
})
