import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { tempDir } from "../../../test/support/TempDir.js"

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const repoRoot = path.resolve(serverDir, "../..")
const manifest = JSON.parse(fs.readFileSync(path.join(serverDir, "package.json"), "utf8")) as {
  readonly bin: Record<string, string>
  readonly files: ReadonlyArray<string>
}
const launcher = path.join(serverDir, manifest.bin.gatehouse!)

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const runNode = (args: ReadonlyArray<string>): Effect.Effect<Run> =>
  Effect.callback<Run>((resume) => {
    const child = execFile(process.execPath, args, { env: { ...process.env, NODE_OPTIONS: "" }, timeout: 30_000 })
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (chunk) => (stdout += chunk))
    child.stderr?.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill())
  })

/**
 * Runs the CLI from its sources with `args` and closes the pipe of its output after the first chunk, as
 * `gatehouse openapi | head -1` does.
 */
const runReadingOneChunk = (args: ReadonlyArray<string>): Effect.Effect<Run> =>
  Effect.callback<Run>((resume) => {
    const bin = path.join(serverDir, "src", "bin.ts")
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@gatehouse-edge/source", bin, ...args], {
      cwd: repoRoot,
      env: { ...process.env, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.stdout.once("data", () => child.stdout.destroy())
    child.on("close", (code) => resume(Effect.succeed({ code, stdout: "", stderr })))
    return Effect.sync(() => child.kill())
  })

/** A copy of the launcher in a package of its own (`<dir>/bin/gatehouse.js`), with no dist/ yet. */
const launcherCopy = (dir: string) => {
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
  fs.mkdirSync(path.join(dir, "bin"))
  const copy = path.join(dir, "bin", "gatehouse.js")
  fs.copyFileSync(launcher, copy)
  return copy
}

describe("the gatehouse bin", () => {
  it("is a committed, executable launcher that the published package ships", () => {
    assert.isTrue(fs.existsSync(launcher), `${manifest.bin.gatehouse} is missing`)
    assert.notInclude(manifest.bin.gatehouse, "dist/", "a bin under dist/ does not exist at install time")
    assert.notStrictEqual(fs.statSync(launcher).mode & 0o111, 0, "the launcher is not executable")
    assert.match(fs.readFileSync(launcher, "utf8"), /^#!\/usr\/bin\/env node\n/)
    assert.include(manifest.files, path.relative(serverDir, launcher).split(path.sep)[0])
    assert.include(manifest.files, "dist")
  })

  it("was linked by the install, before any build, so `npx gatehouse` finds it", () => {
    const link = path.join(repoRoot, "node_modules", ".bin", "gatehouse")
    assert.isTrue(fs.existsSync(link), "node_modules/.bin/gatehouse is missing: run `npm ci` again")
    assert.strictEqual(fs.realpathSync(link), fs.realpathSync(launcher))
  })

  it.live("without a build, says how to build and exits 1", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const copy = launcherCopy(yield* tempDir("gatehouse-bin-"))
        const result = yield* runNode([copy, "--help"])
        assert.strictEqual(result.code, 1)
        assert.strictEqual(result.stdout, "")
        assert.include(result.stderr, "the CLI is not built")
        assert.include(result.stderr, "npm run build")
      })
    )
  )

  it.live(
    "stops quietly when the reader of its output goes away (`gatehouse openapi | head`): exit 0, no stack trace",
    () =>
      Effect.gen(function* () {
        // The document (~380 KB) is far larger than a pipe's buffer, so writing goes on after the reader left.
        const result = yield* runReadingOneChunk(["openapi"])
        assert.strictEqual(result.stderr, "")
        assert.strictEqual(result.code, 0)
      }),
    30_000
  )

  it.live("with a build, runs dist/bin.js with the same arguments and exit code", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-bin-")
        const copy = launcherCopy(dir)
        fs.mkdirSync(path.join(dir, "dist"))
        fs.writeFileSync(
          path.join(dir, "dist", "bin.js"),
          "console.log(JSON.stringify(process.argv.slice(2)))\nprocess.exitCode = 3\n"
        )
        const result = yield* runNode([copy, "serve", "--http", "127.0.0.1:0"])
        assert.strictEqual(result.code, 3, result.stderr)
        assert.deepStrictEqual(JSON.parse(result.stdout), ["serve", "--http", "127.0.0.1:0"])
      })
    )
  )
})
