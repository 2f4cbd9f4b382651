import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

// Since Node 22 the first ES import of `node:http` loads Node's bundled undici (~4 MiB of an idle server's memory),
// through the lazy `WebSocket`, `CloseEvent` and `MessageEvent` exports; src/NodeHttpFacade.ts keeps the `gatehouse`
// command from paying for it. Checked in fresh processes: `serve` with a bad `--http` loads every module of the
// server (ServeProgram.ts, loaded when `serve` runs), then refuses the address and exits. On Node 20, which has no
// such exports, nothing loads undici either way; CI runs this file on Node 24 too, where the first test fails
// without NodeHttpFacade.

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const repoRoot = path.resolve(serverDir, "../..")

interface Probe {
  /** Whether Node's undici was loaded when the process exited. */
  readonly undiciLoaded: boolean
  /** `typeof require("node:http").WebSocket` at exit. */
  readonly httpWebSocket: string
  /** What the process wrote to stderr. */
  readonly stderr: string
}

/** Reports, when the process exits, what `Probe` describes (loaded with `--import` before the program). */
const probe = `data:text/javascript,${encodeURIComponent(`
process.on("exit", () => {
  const http = process.getBuiltinModule("node:http")
  const undiciLoaded = process.moduleLoadList.some((name) => name.includes("internal/deps/undici/undici"))
  process.stderr.write("PROBE " + JSON.stringify({ undiciLoaded, httpWebSocket: typeof http.WebSocket }) + "\\n")
})`)}`

const runProbed = (args: ReadonlyArray<string>): Effect.Effect<Probe> =>
  Effect.callback<Probe>((resume) => {
    const child = execFile(
      process.execPath,
      ["--import", probe, ...args],
      { cwd: repoRoot, env: { ...process.env, NODE_OPTIONS: "" }, timeout: 60_000 },
      (error, _stdout, stderr) => {
        const line = stderr.split("\n").find((text) => text.startsWith("PROBE "))
        if (line === undefined) resume(Effect.die(new Error(`no probe line (${String(error)}): ${stderr}`)))
        else resume(Effect.succeed({ ...(JSON.parse(line.slice("PROBE ".length)) as Probe), stderr }))
      }
    )
    return Effect.sync(() => child.kill())
  })

/** Whether this Node's `node:http` has the lazy exports that load undici (Node 22 and later). */
const httpHasLazyUndici =
  Object.getOwnPropertyDescriptor(process.getBuiltinModule("node:http"), "WebSocket")?.get !== undefined

describe("node:http's ES facade in the gatehouse command", () => {
  it.live(
    "serve loads every server module without loading undici; require('node:http').WebSocket still works",
    () =>
      Effect.gen(function* () {
        const bin = path.join(serverDir, "src", "bin.ts")
        const result = yield* runProbed([
          "--import",
          "tsx",
          "--conditions=@gatehouse-edge/source",
          bin,
          "serve",
          "--http",
          "not-an-address"
        ])
        // The refusal comes from the serve program, after its imports: the server's modules were loaded.
        assert.include(result.stderr, 'expected host:port, e.g. 127.0.0.1:8888 or [::1]:8888, got "not-an-address"')
        assert.isFalse(result.undiciLoaded)
        assert.strictEqual(result.httpWebSocket, httpHasLazyUndici ? "function" : "undefined")
      }),
    60_000
  )

  it.live(
    "the probe sees undici when a plain ES import of node:http loads it (Node 22 and later)",
    () =>
      Effect.gen(function* () {
        const result = yield* runProbed(["--input-type=module", "--eval", 'import "node:http"'])
        assert.strictEqual(result.undiciLoaded, httpHasLazyUndici)
      }),
    60_000
  )
})
