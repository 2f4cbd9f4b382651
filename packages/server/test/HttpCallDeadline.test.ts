import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { gatehouseCommand, runCli } from "../../../test/support/Cli.js"
import { silentServer } from "../../../test/support/SilentServer.js"
import { tempDir } from "../../../test/support/TempDir.js"
import { waitFor } from "../../../test/support/WaitFor.js"

// A server that accepts the connection and never answers (stopped, stuck): an HTTP command gives up after 30 s, as
// a gRPC command does, instead of fetch's 5 min. The calls the server itself answers late (an LXC or container
// action, a file's write) wait longer. This test waits the real 30 s: the deadline is the production value.

const env = { GATEHOUSE_API_KEY: "gh_test_key" }

/** `gatehouse <args>` in the background; `running()` says whether it has not exited yet. Killed at the end. */
const startCli = (args: ReadonlyArray<string>, cwd: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("GATEHOUSE_")))
      const child = spawn(process.execPath, gatehouseCommand(args), {
        cwd,
        env: { ...inherited, NODE_OPTIONS: "", ...env },
        stdio: "ignore"
      })
      return { args, running: () => child.exitCode === null && child.signalCode === null, child }
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGKILL"))
  )

describe("an HTTP command against a server that never answers", () => {
  it.live(
    "gives up after 30 s with one line saying so (exit 1); the actions the server takes longer to answer still wait",
    () =>
      Effect.gen(function* () {
        const silent = yield* silentServer
        const server = `http://127.0.0.1:${silent.port}`
        const dir = yield* tempDir("gatehouse-http-deadline-")
        fs.writeFileSync(path.join(dir, "web.yml"), "web:\n  port: 9\n")

        // The long calls go out first: when the read below has given up, they have waited longer than it.
        const long = [
          yield* startCli(["docker", "stop", "web", "--server", server], dir),
          yield* startCli(["hypervisor", "start", "pve1", "101", "--server", server], dir),
          yield* startCli(["files", "put", "web.yml", "--from", "web.yml", "--force", "--server", server], dir),
          yield* startCli(["files", "validate", "web.yml", "--server", server], dir)
        ]
        yield* waitFor(
          Effect.sync(() => silent.sockets.size),
          (connected) => connected >= long.length,
          "the long calls to connect",
          60_000
        )

        const read = yield* runCli(["routes", "list", "--server", server], { env })
        assert.strictEqual(read.code, 1)
        assert.strictEqual(read.stderr, `gatehouse: the HTTP API at ${server} did not answer within 30 s\n`)
        for (const call of long) assert.isTrue(call.running(), `${call.args.join(" ")} gave up as early as a read`)
      }).pipe(Effect.scoped),
    120_000
  )
})
