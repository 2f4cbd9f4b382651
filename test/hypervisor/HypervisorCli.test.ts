import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { gatehouseCommand, runCli } from "../support/Cli.js"
import { requireTool } from "../support/e2e.js"
import { hypervisorWorld } from "./HypervisorWorld.js"

// `gatehouse hypervisor ...` as an operator runs it: a separate process calling the running server's HTTP API.

const sshd = requireTool("/usr/sbin/sshd")

const cli = (world: { server: { origin: string; apiKey: string; dir: string } }, args: ReadonlyArray<string>) =>
  runCli(["hypervisor", ...args, "--server", world.server.origin], {
    cwd: world.server.dir,
    env: { GATEHOUSE_API_KEY: world.server.apiKey }
  })

describe("gatehouse hypervisor", () => {
  it.live(
    "clusters, nodes, guests, stats (text, line and JSON), stop and start, and errors as one line",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const world = yield* hypervisorWorld()
          const nodes = yield* cli(world, ["nodes"])
          assert.strictEqual(nodes.code, 0, nodes.stderr)
          assert.match(nodes.stdout, /^sim\s+pve1\s+online/m)
          // The nodes came from the cache, so it has been refreshed.
          const clusters = yield* cli(world, ["clusters"])
          assert.strictEqual(clusters.code, 0, clusters.stderr)
          assert.match(clusters.stdout, /^sim\s+fresh {2}refreshed \d{4}-\d\d-\d\dT[\d:.]+Z\n$/)
          const guests = yield* cli(world, ["guests"])
          assert.match(guests.stdout, /^\s+101\s+lxc\s+pve1\s+running\s+web/m)
          const json = yield* cli(world, ["stats", "pve1", "--json"])
          assert.strictEqual(JSON.parse(json.stdout).node, "pve1")
          const line = yield* cli(world, ["stats", "pve1", "102"])
          assert.strictEqual(line.stdout, "stopped|0.0%|0B/512MiB|0.00%|0B/0B|0B/0B\n")
          const lineJson = yield* cli(world, ["stats", "pve1", "102", "--json"])
          assert.deepStrictEqual(JSON.parse(lineJson.stdout), {
            status: "stopped",
            cpu: "0.0%",
            memory: "0B/512MiB",
            memory_percent: "0.00%",
            net_io: "0B/0B",
            block_io: "0B/0B"
          })
          const started = yield* cli(world, ["start", "pve1", "102"])
          assert.strictEqual(started.code, 0, started.stderr)
          assert.match(started.stdout, /^container started \(running\) {2}task UPID:pve1:/)

          const missing = yield* cli(world, ["stats", "pve1", "999"])
          assert.strictEqual(missing.code, 1)
          assert.strictEqual(missing.stderr, 'gatehouse: container 999 not found on node "pve1"\n')
          const dangerous = yield* cli(world, ["journal", "pve1", "--service", "x;reboot"])
          assert.strictEqual(dangerous.code, 1)
          assert.match(dangerous.stderr, /^gatehouse: invalid service: service must not contain `;`/)
          const unreachable = yield* runCli(["hypervisor", "nodes", "--server", "http://127.0.0.1:1"], {
            cwd: world.server.dir,
            env: { GATEHOUSE_API_KEY: world.server.apiKey }
          })
          assert.strictEqual(unreachable.code, 1)
          assert.match(unreachable.stderr, /^gatehouse: cannot reach the HTTP API at http:\/\/127\.0\.0\.1:1/)
        })
      ),
    // Nine CLI processes, each starting Node with tsx on the sources (about 2 s each; more on a busy CI machine).
    120_000
  )

  it.live.skipIf(sshd.skip)(
    "journal follows until Ctrl-C, which ends the remote command",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const world = yield* hypervisorWorld({ ssh: true })
          const log = path.join(world.journalDir, "pveproxy.log")
          fs.writeFileSync(log, "starting\n")
          const child = spawn(
            process.execPath,
            gatehouseCommand([
              "hypervisor",
              "journal",
              "pve1",
              "--service",
              "pveproxy",
              "--server",
              world.server.origin
            ]),
            { cwd: world.server.dir, env: { ...process.env, NODE_OPTIONS: "", GATEHOUSE_API_KEY: world.server.apiKey } }
          )
          yield* Effect.addFinalizer(() => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL")))
          let stdout = ""
          const seen = (text: string) =>
            Effect.promise(
              () =>
                new Promise<void>((resolve) => {
                  const check = () => stdout.includes(text) && resolve()
                  child.stdout.on("data", (chunk) => {
                    stdout += chunk
                    check()
                  })
                  check()
                })
            )
          yield* seen("starting\n")
          fs.appendFileSync(log, "listening\n")
          yield* seen("listening\n")
          const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
          child.kill("SIGINT")
          assert.strictEqual(yield* Effect.promise(() => exited), 0)
          // The socket closed, so the server closed the SSH channel and the remote follow ended.
          const deadline = Date.now() + 10_000
          for (;;) {
            const running = yield* Effect.promise(
              () =>
                new Promise<boolean>((resolve) =>
                  spawn("pgrep", ["-f", world.journalDir]).on("close", (code) => resolve(code === 0))
                )
            )
            if (!running) break
            if (Date.now() > deadline) assert.fail("the remote journalctl is still running")
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 25)))
          }
        })
      ),
    60_000
  )
})
