import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runCli } from "../support/Cli.js"
import { requireTool } from "../support/e2e.js"
import { dockerWorld } from "./DockerWorld.js"

// `gatehouse docker ...` as an operator runs it: a separate process calling the running server's HTTP API, which
// talks to a real dockerd.

const dockerd = requireTool("dockerd")

describe.skipIf(dockerd.skip)("gatehouse docker", () => {
  it.live(
    "ps, stats, logs (one stream, a limit), stop and start (idempotent), and errors as one line",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const { engine, server } = yield* dockerWorld()
          const cli = (args: ReadonlyArray<string>) =>
            runCli(["docker", ...args, "--server", server.origin], {
              cwd: server.dir,
              env: { GATEHOUSE_API_KEY: server.apiKey }
            })
          const id = yield* engine.run("talker", {
            Cmd: ["sh", "-c", "echo out 1; echo err 1 >&2; echo out 2; echo err 2 >&2; exec sleep 1000"],
            StopSignal: "SIGKILL"
          })

          const ps = yield* cli(["ps"])
          assert.strictEqual(ps.code, 0, ps.stderr)
          assert.match(ps.stdout, new RegExp(`^local\\s+${id.slice(0, 12)}\\s+talker\\s+running\\s+Up`, "m"))
          const stats = yield* cli(["stats", "talker", "--json"])
          assert.strictEqual(stats.code, 0, stats.stderr)
          assert.deepInclude(JSON.parse(stats.stdout), { id, name: "talker", host: "local" })
          // The lines are written at start: wait until the engine has both before reading one of them.
          const deadline = Date.now() + 10_000
          let errors = yield* cli(["logs", "talker", "--stream", "stderr"])
          while (errors.stdout !== "err err 1\nerr err 2\n" && Date.now() < deadline) {
            errors = yield* cli(["logs", "talker", "--stream", "stderr"])
          }
          assert.strictEqual(errors.stdout, "err err 1\nerr err 2\n", errors.stderr)
          const last = yield* cli(["logs", id.slice(0, 8), "--limit", "1", "--stream", "stdout"])
          assert.strictEqual(last.stdout, "out 2\n", last.stderr)

          const stopped = yield* cli(["stop", "talker"])
          assert.strictEqual(stopped.stdout, "container stopped (exited)\n", stopped.stderr)
          const again = yield* cli(["stop", "talker"])
          assert.strictEqual(again.stdout, "container already stopped (exited)\n", again.stderr)
          const started = yield* cli(["start", "talker"])
          assert.strictEqual(started.stdout, "container started (running)\n", started.stderr)

          const missing = yield* cli(["stats", "nope"])
          assert.strictEqual(missing.code, 1)
          assert.strictEqual(missing.stderr, 'gatehouse: container "nope" not found\n')
          const badLimit = yield* cli(["logs", "talker", "--limit", "0"])
          assert.strictEqual(badLimit.code, 1)
          assert.strictEqual(badLimit.stderr, 'gatehouse: invalid "limit": Expected a value between 1 and 1000\n')
        })
      ),
    // About ten CLI processes, each starting Node with tsx on the sources (about 2 s each; more on a busy machine).
    150_000
  )
})
