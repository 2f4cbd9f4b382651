import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { tsxLoader } from "../../../test/support/Cli.js"
import { freePort } from "../../../test/support/FreePort.js"
import { tempDir } from "../../../test/support/TempDir.js"

// Every `gatehouse` command builds the whole command tree, but loads what a command runs only when it runs: the
// server (every core service, both transports) with `serve`, the gRPC client with the gRPC commands, the typed HTTP
// client with the HTTP commands, and all of core only with the commands that use more than its configuration and
// its route validator (bench/README.md, "CLI start-up": `--version` went from 704 modules to 355, then to fewer
// without core). Checked in fresh processes, from the sources, with the module recorder the client's
// NoServerModules test uses.

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const repoRoot = path.resolve(serverDir, "../..")
const recorder = path.join(repoRoot, "packages/client/test/support/record-modules.mjs")

interface Run {
  readonly code: number | null
  readonly stderr: string
  /** The modules the process loaded, relative to the repository, with `/` separators. */
  readonly loaded: ReadonlyArray<string>
}

/** Runs `gatehouse <args>` from its sources, in a new directory holding `files`, and records every module it loads. */
const runRecorded = (args: ReadonlyArray<string>, files: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function* () {
    const dir = yield* tempDir("gatehouse-cli-modules-")
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text)
    const log = path.join(dir, "modules.log")
    fs.writeFileSync(log, "")
    const bin = path.join(serverDir, "src", "bin.ts")
    // The caller's GATEHOUSE_* settings dropped: only the arguments say where to connect.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GATEHOUSE_")))
    const run = yield* Effect.callback<{ readonly code: number | null; readonly stderr: string }>((resume) => {
      const child = execFile(
        process.execPath,
        ["--conditions=@gatehouse-edge/source", "--import", tsxLoader, "--import", recorder, bin, ...args],
        {
          cwd: dir,
          env: { ...env, NODE_OPTIONS: "", GATEHOUSE_MODULE_LOG: log, GATEHOUSE_API_KEY: "gh_unused" },
          timeout: 60_000
        },
        (error, _stdout, stderr) =>
          resume(Effect.succeed({ code: error === null ? 0 : (error.code as number), stderr }))
      )
      return Effect.sync(() => child.kill())
    })
    const loaded = fs
      .readFileSync(log, "utf8")
      .split("\n")
      .filter((url) => url.startsWith("file:"))
      .map((url) => path.relative(repoRoot, fileURLToPath(url)).split(path.sep).join("/"))
    return { ...run, loaded } satisfies Run
  }).pipe(Effect.scoped)

/** Which of the named parts of the server a run loaded. */
const partsLoaded = (run: Run) => {
  const has = (pattern: RegExp) => run.loaded.some((file) => pattern.test(file))
  return {
    // All of core (the store, the services); `@gatehouse-edge/core/config` is what a client command loads.
    core: has(/^packages\/core\/src\/index\.ts$/),
    server: has(/^packages\/server\/src\/GatehouseServer\.ts$/),
    httpTransport: has(/^packages\/transport-http\/src\//),
    grpcTransport: has(/^packages\/transport-grpc\/src\/GrpcServer\.ts$/),
    grpcClient: has(/(^|\/)node_modules\/@grpc\/grpc-js\//),
    httpClient: has(/^packages\/client\/src\//)
  }
}

describe("what each gatehouse command loads", () => {
  it.live(
    "--version loads neither core, nor the server, nor the gRPC client, nor the HTTP client",
    () =>
      Effect.gen(function* () {
        const run = yield* runRecorded(["--version"])
        assert.strictEqual(run.code, 0, run.stderr)
        // The recorder saw the command's own modules: the check looks at the right files.
        assert.isTrue(run.loaded.some((file) => file === "packages/server/src/Cli.ts"))
        assert.deepStrictEqual(partsLoaded(run), {
          core: false,
          server: false,
          httpTransport: false,
          grpcTransport: false,
          grpcClient: false,
          httpClient: false
        })
      }),
    60_000
  )

  it.live(
    "an HTTP command loads the HTTP client and not core",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const run = yield* runRecorded(["sessions", "list", "--server", `http://127.0.0.1:${port}`])
        assert.strictEqual(run.code, 1)
        assert.include(run.stderr, `cannot reach the HTTP API at http://127.0.0.1:${port}`)
        assert.deepStrictEqual(partsLoaded(run), {
          core: false,
          server: false,
          httpTransport: false,
          grpcTransport: false,
          grpcClient: false,
          httpClient: true
        })
      }),
    60_000
  )

  it.live(
    "a gRPC command loads the gRPC client and not core",
    () =>
      Effect.gen(function* () {
        const port = yield* freePort
        const run = yield* runRecorded(["auth", "list", "--grpc", `127.0.0.1:${port}`])
        assert.strictEqual(run.code, 1)
        assert.include(run.stderr, `cannot reach the gRPC API at 127.0.0.1:${port}`)
        assert.deepStrictEqual(partsLoaded(run), {
          core: false,
          server: false,
          httpTransport: false,
          grpcTransport: false,
          grpcClient: true,
          httpClient: false
        })
      }),
    60_000
  )

  it.live(
    "validate checks route files with the route validator alone, not all of core",
    () =>
      Effect.gen(function* () {
        const run = yield* runRecorded(["validate", "a.yml"], { "a.yml": "app:\n  port: 8080\n" })
        assert.strictEqual(run.code, 0, run.stderr)
        // It did validate: the validator's modules were loaded (from `@gatehouse-edge/core/routes`).
        assert.isTrue(run.loaded.some((file) => file === "packages/core/src/routes/RouteSources.ts"))
        assert.deepStrictEqual(partsLoaded(run), {
          core: false,
          server: false,
          httpTransport: false,
          grpcTransport: false,
          grpcClient: false,
          httpClient: false
        })
      }),
    60_000
  )

  it.live(
    "serve loads the server and both transports before it reads its settings",
    () =>
      Effect.gen(function* () {
        const run = yield* runRecorded(["serve", "--http", "not-an-address"])
        assert.strictEqual(run.code, 1)
        assert.include(run.stderr, 'got "not-an-address"')
        const parts = partsLoaded(run)
        assert.isTrue(parts.core && parts.server && parts.httpTransport && parts.grpcTransport, JSON.stringify(parts))
      }),
    60_000
  )
})
