import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ServerProcess, spawnServer } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"
import * as Server from "../src/index.js"
import { layer, v8NeedsNudge } from "../src/MemoryReducerNudge.js"

// src/MemoryReducerNudge.ts keeps V8's memory reducer working in `gatehouse serve` on Node 24 and later. Checked on a
// fresh server process under `--trace-gc`, where V8 logs a memory-reducing GC as `Mark-Compact (reduce)`. Without the
// nudge, on Node 24 the first one comes from the reducer's watchdog ~100 s after start (measured: 9 s with it), so
// the end-to-end test fails there within its deadline; Node 20's reducer works by itself (its first at ~24 s). CI
// runs this file on both.

// How long an idle server may take to its first memory-reducing GC (see above). Where the nudge is needed, 90 s:
// without it the reducer's watchdog comes ~100 s after start-up's last major GC at the earliest, so 90 s still tells
// the two apart. Elsewhere V8's reducer works alone, and a loaded machine only delays it (Node 20: 16 s on a quiet
// machine, 33 s beside two busy CPU hogs, over 60 s once in CI beside another test file), so the deadline is 150 s.
const deadlineMs = v8NeedsNudge(process.versions.v8) ? 90_000 : 150_000

/** The first line of the server's output that matches `pattern`, as soon as it is written. */
const lineOf = (server: ServerProcess, pattern: RegExp): Effect.Effect<string> =>
  Effect.callback<string>((resume) => {
    const check = () => {
      const line = server.output.stdout.split("\n").find((text) => pattern.test(text))
      if (line === undefined) return
      server.child.stdout?.off("data", check)
      resume(Effect.succeed(line))
    }
    server.child.stdout?.on("data", check)
    check()
    return Effect.sync(() => server.child.stdout?.off("data", check))
  })

describe("the memory reducer in gatehouse serve", () => {
  it("is nudged on V8 13.1 and later (Node 24 and later), not before", () => {
    assert.isFalse(v8NeedsNudge("11.3.244.8-node.19"))
    assert.isFalse(v8NeedsNudge("12.4.254.21-node.33"))
    assert.isFalse(v8NeedsNudge("13.0.245.25"))
    assert.isTrue(v8NeedsNudge("13.1.201.8"))
    assert.isTrue(v8NeedsNudge("13.6.233.17-node.20"))
    assert.isTrue(v8NeedsNudge("14.6.202.9-node.12"))
  })

  it("is exported for an embedding process to add", () => {
    assert.strictEqual(Server.MemoryReducerNudge.layer, layer)
  })

  it.live(
    "an idle server gets a memory-reducing GC soon after start, on this Node",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir()
        const server = yield* spawnServer(["--http", "127.0.0.1:0", "--data", "data"], {
          cwd: dir,
          env: { GATEHOUSE_ROUTES_DIR: dir },
          nodeArgs: ["--trace-gc"]
        })
        const line = yield* lineOf(server, /Mark-Compact \(reduce\)/).pipe(
          Effect.timeoutOrElse({
            duration: deadlineMs,
            orElse: () => Effect.die(new Error(`no memory-reducing GC within ${deadlineMs} ms of the server's start`))
          })
        )
        assert.match(line, /Mark-Compact \(reduce\)/)
      }).pipe(Effect.scoped),
    deadlineMs + 30_000
  )
})
