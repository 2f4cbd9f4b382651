import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { startTestServer } from "./support/TestServer.js"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
// What `npx tsx --conditions=@gatehouse-edge/source` does, without npx (which cannot find tsx outside the repository).
const tsxLoader = pathToFileURL(path.join(repoRoot, "node_modules/tsx/dist/loader.mjs")).href

const withoutGatehouseVariables = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => name !== "GATEHOUSE_URL" && name !== "GATEHOUSE_API_KEY"))

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs an example in a child `node`, never failing: the exit code and output are the result. */
const runExample = (
  example: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}
): Effect.Effect<Run> =>
  Effect.callback<Run>((resume) => {
    const child = execFile(
      process.execPath,
      ["--conditions=@gatehouse-edge/source", "--import", tsxLoader, path.join(repoRoot, "examples", example), ...args],
      {
        cwd: options.cwd ?? repoRoot,
        // Only what the test gives: a GATEHOUSE_URL/GATEHOUSE_API_KEY of the caller's shell must not leak in.
        env: { ...withoutGatehouseVariables(process.env), ...options.env },
        timeout: 30_000
      },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }))
    )
    return Effect.sync(() => child.kill())
  })

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-examples-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("examples/embed-validator.ts", () => {
  it.live(
    "prints file:line:column: message for every problem and exits 1; exits 0 for valid files, 2 without any",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const good = path.join(dir, "good.yml")
        const bad = path.join(dir, "bad.yml")
        fs.writeFileSync(good, "app:\n  host: 127.0.0.1\n  port: 9\n")
        fs.writeFileSync(bad, "web:\n  port: 99999\n  sheme: http\napp:\n  port: 80\n")

        const ok = yield* runExample("embed-validator.ts", [good])
        assert.strictEqual(ok.code, 0, ok.stderr)
        assert.strictEqual(ok.stdout, "OK: 1 route in 1 file\n")

        const problems = yield* runExample("embed-validator.ts", [good, bad])
        assert.strictEqual(problems.code, 1, problems.stderr)
        assert.deepStrictEqual(problems.stdout.trimEnd().split("\n"), [
          `${bad}:2:9: port 99999 is out of range 0–65535`,
          `${bad}:3:3: unknown key \`sheme\` (did you mean \`scheme\`?)`,
          `${bad}:4:1: duplicate alias \`app\` (first defined at ${good}:1:1)`,
          "3 problems in 2 file(s)"
        ])

        const usage = yield* runExample("embed-validator.ts", [])
        assert.strictEqual(usage.code, 2)
        assert.include(usage.stderr, "usage:")
      }).pipe(Effect.scoped),
    60_000
  )
})

describe("examples/client-usage.ts", () => {
  it.live(
    "talks to a running server: version, routes, validation, health frames",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer({ routeFiles: { "app.yml": "app:\n  host: 127.0.0.1\n  port: 9\n" } })
        const run = yield* runExample("client-usage.ts", ["--frames", "1"], {
          env: { GATEHOUSE_URL: server.baseUrl, GATEHOUSE_API_KEY: server.apiKey }
        })
        assert.strictEqual(run.code, 0, run.stderr)
        const lines = run.stdout.trimEnd().split("\n")
        assert.deepStrictEqual(lines.slice(0, 2), [
          `server: Gatehouse 0.0.0-test (test) at ${server.baseUrl}`,
          "routes: 1"
        ])
        assert.match(lines[2]!, /^ {2}app {2}http:\/\/127\.0\.0\.1:9 {2}(starting|unhealthy|unknown)$/)
        assert.include(lines, "validate: example is valid (scheme http, healthcheck /)")
        assert.include(lines, "validate: 2:9: broken.port: port 99999 is out of range 0–65535")
        assert.match(lines[lines.length - 1]!, /^health: app=(starting|unhealthy|unknown)$/)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "reads the key from ./data/admin.key, and reports a refused key with exit code 1",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer()
        // The test server keeps its admin key in <dir>/data/admin.key, as `gatehouse serve` does in its cwd.
        const fromFile = yield* runExample("client-usage.ts", ["--url", server.origin, "--frames", "1"], {
          cwd: server.dir
        })
        assert.strictEqual(fromFile.code, 0, fromFile.stderr)
        assert.include(fromFile.stdout, "health: (no routes)")

        const refused = yield* runExample("client-usage.ts", ["--url", server.origin, "--key", "gh_00000000_wrong"])
        assert.strictEqual(refused.code, 1)
        assert.include(refused.stderr, "the server refused the API key: missing or invalid API key")
      }).pipe(Effect.scoped),
    60_000
  )
})
