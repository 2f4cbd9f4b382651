import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as nodeModule from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { tsxLoader } from "../../../test/support/Cli.js"
import { tempDir } from "../../../test/support/TempDir.js"

// The `gatehouse` command turns on Node's compile cache (src/CompileCache.ts) in a directory only its user can write,
// `<os.tmpdir()>/gatehouse-compile-cache-<uid>`; here the temporary directory is a fresh one (TMPDIR). Node 20 has
// no compile cache: there the command must run all the same and write nothing. CI runs this file on Node 24 too.
// `serve` runs without it: Node holds the cache in memory for as long as the process runs (see CompileCache.ts).

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "bin.ts")
const nodeHasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function"

const cacheName = `gatehouse-compile-cache-${process.getuid?.() ?? "user"}`

/** The environment of a run in `tmp`: Node's own settings of the cache dropped, so only the command may turn it on. */
const envIn = (tmp: string, env: Readonly<Record<string, string>>) => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("NODE_COMPILE_CACHE") && name !== "NODE_DISABLE_COMPILE_CACHE"
    )
  ),
  NODE_OPTIONS: "",
  TMPDIR: tmp,
  ...env
})

/** How many entries the cache directory in `tmp` holds afterwards, and its mode (0 and 0 when there is none). */
const cacheIn = (tmp: string) => {
  const cacheDir = path.join(tmp, cacheName)
  if (!fs.existsSync(cacheDir)) return { cached: 0, mode: 0 }
  return { cached: fs.readdirSync(cacheDir, { recursive: true }).length, mode: fs.statSync(cacheDir).mode }
}

/** Runs `gatehouse --version` from its sources with `env` in `tmp` as TMPDIR; its output and the cache it left. */
const runVersionIn = (tmp: string, env: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const stdout = yield* Effect.callback<string>((resume) => {
      const child = execFile(
        process.execPath,
        ["--conditions=@gatehouse-edge/source", "--import", tsxLoader, bin, "--version"],
        { cwd: tmp, env: envIn(tmp, env), timeout: 60_000 },
        (error, out, stderr) =>
          resume(error === null ? Effect.succeed(out) : Effect.die(new Error(`--version failed: ${stderr}`)))
      )
      return Effect.sync(() => child.kill())
    })
    return { stdout, ...cacheIn(tmp) }
  })

/** Runs `gatehouse --version` in a fresh TMPDIR (`prepare` may put things there first). */
const runVersion = (env: Readonly<Record<string, string>>, prepare: (tmp: string) => void = () => {}) =>
  Effect.gen(function* () {
    const tmp = yield* tempDir("gatehouse-tmp-")
    prepare(tmp)
    return yield* runVersionIn(tmp, env)
  }).pipe(Effect.scoped)

/** Starts `gatehouse serve` from its sources in `tmp` as TMPDIR, waits until it listens, stops it; its output. */
const serveOnceIn = (tmp: string) =>
  Effect.callback<string>((resume) => {
    const args = ["serve", "--http", "127.0.0.1:0", "--grpc", "127.0.0.1:0", "--data", path.join(tmp, "data")]
    const child = spawn(
      process.execPath,
      ["--conditions=@gatehouse-edge/source", "--import", tsxLoader, bin, ...args],
      {
        cwd: tmp,
        env: envIn(tmp, {})
      }
    )
    let output = ""
    const collect = (chunk: Buffer) => {
      output += chunk
      if (/listening on http/.test(output)) child.kill("SIGTERM")
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    child.on("close", (code) =>
      resume(
        code === 0 && /listening on http/.test(output)
          ? Effect.succeed(output)
          : Effect.die(new Error(`serve exited with ${code}: ${output}`))
      )
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  }).pipe(Effect.timeout("60 seconds"), Effect.orDie)

describe("the gatehouse command's compile cache", () => {
  it.live(
    nodeHasCompileCache
      ? "a run leaves the compiled modules in <tmpdir>/gatehouse-compile-cache-<uid>, a directory of mode 0700"
      : "Node 20: the command runs without one and writes nothing",
    () =>
      Effect.gen(function* () {
        const run = yield* runVersion({})
        assert.match(run.stdout, /^gatehouse v/)
        if (nodeHasCompileCache) {
          assert.isAbove(run.cached, 100)
          assert.strictEqual(run.mode & 0o777, 0o700)
        } else assert.strictEqual(run.cached, 0)
      }),
    60_000
  )

  it.live(
    "NODE_DISABLE_COMPILE_CACHE=1 turns it off",
    () =>
      Effect.gen(function* () {
        const run = yield* runVersion({ NODE_DISABLE_COMPILE_CACHE: "1" })
        assert.match(run.stdout, /^gatehouse v/)
        assert.strictEqual(run.cached, 0)
      }),
    60_000
  )

  it.live(
    "a cache directory other users can write is not used (its name is easy to guess)",
    () =>
      Effect.gen(function* () {
        const run = yield* runVersion({}, (tmp) => {
          fs.mkdirSync(path.join(tmp, cacheName))
          fs.chmodSync(path.join(tmp, cacheName), 0o777)
        })
        assert.match(run.stdout, /^gatehouse v/)
        assert.strictEqual(run.cached, 0)
      }),
    60_000
  )

  it.live(
    "serve runs without it (Node holds it in memory as long as the process runs); --version then makes it",
    () =>
      Effect.gen(function* () {
        const tmp = yield* tempDir("gatehouse-tmp-")
        yield* serveOnceIn(tmp)
        assert.deepStrictEqual(cacheIn(tmp), { cached: 0, mode: 0 })
        // The same environment does make the cache for another command: the check above can fail.
        const run = yield* runVersionIn(tmp)
        if (nodeHasCompileCache) assert.isAbove(run.cached, 100)
        else assert.strictEqual(run.cached, 0)
      }).pipe(Effect.scoped),
    120_000
  )
})
