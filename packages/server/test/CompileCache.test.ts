import { execFile } from "node:child_process"
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

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "bin.ts")
const nodeHasCompileCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === "function"

const cacheName = `gatehouse-compile-cache-${process.getuid?.() ?? "user"}`

/**
 * Runs `gatehouse --version` from its sources with `env` in a fresh TMPDIR (`prepare` may put things there first);
 * its output, and how many entries its cache directory holds afterwards.
 */
const runVersion = (env: Readonly<Record<string, string>>, prepare: (tmp: string) => void = () => {}) =>
  Effect.gen(function* () {
    const tmp = yield* tempDir("gatehouse-tmp-")
    prepare(tmp)
    // Node's own settings of the cache dropped: only the command may turn it on.
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !name.startsWith("NODE_COMPILE_CACHE") && name !== "NODE_DISABLE_COMPILE_CACHE"
      )
    )
    const stdout = yield* Effect.callback<string>((resume) => {
      const child = execFile(
        process.execPath,
        ["--conditions=@gatehouse-edge/source", "--import", tsxLoader, bin, "--version"],
        { cwd: tmp, env: { ...inherited, NODE_OPTIONS: "", TMPDIR: tmp, ...env }, timeout: 60_000 },
        (error, out, stderr) =>
          resume(error === null ? Effect.succeed(out) : Effect.die(new Error(`--version failed: ${stderr}`)))
      )
      return Effect.sync(() => child.kill())
    })
    const cacheDir = path.join(tmp, cacheName)
    const cached = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir, { recursive: true }).length : 0
    const mode = fs.existsSync(cacheDir) ? fs.statSync(cacheDir).mode : 0
    return { stdout, cached, mode }
  }).pipe(Effect.scoped)

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
})
