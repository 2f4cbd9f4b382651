import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect, type Scope } from "effect"
import { buildState, builtBin } from "./BuiltCli.js"

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))
const bin = fileURLToPath(new URL("../../packages/server/src/bin.ts", import.meta.url))
/** tsx's loader by absolute URL (what `npx tsx` does, from any working directory). */
export const tsxLoader = pathToFileURL(`${repoRoot}/node_modules/tsx/dist/loader.mjs`).href

/**
 * Which `gatehouse` the tests run: the build when every package's build is current, else the sources through tsx.
 * CI builds before it tests, so there the shipped files are what runs, and each start skips tsx's transforms (a
 * server starts in about half the time). After an edit without a build, the sources run. GATEHOUSE_TEST_CLI=source
 * or =dist chooses (dist refuses a build that is not current).
 */
const cliUnderTest = (): "dist" | "source" => {
  const chosen = process.env.GATEHOUSE_TEST_CLI
  if (chosen !== undefined && chosen !== "dist" && chosen !== "source")
    throw new Error(`GATEHOUSE_TEST_CLI is source or dist, not ${chosen}`)
  if (chosen === "source") return "source"
  const state = buildState()
  if (chosen === "dist" && state !== "current")
    throw new Error(`GATEHOUSE_TEST_CLI=dist, but the build is ${state}: npm run build`)
  return state === "current" ? "dist" : "source"
}

let chosenCli: "dist" | "source" | undefined

/** Node arguments that run the `gatehouse` CLI: the build when it is current, else the sources (above). */
export const gatehouseCommand = (args: ReadonlyArray<string>) => {
  chosenCli ??= cliUnderTest()
  return chosenCli === "dist"
    ? [builtBin, ...args]
    : ["--conditions=@gatehouse-edge/source", "--import", tsxLoader, bin, ...args]
}

const childEnv = (env: Readonly<Record<string, string>> = {}) => {
  // Keep PATH and the toolchain, drop GATEHOUSE_* from the parent so each test states its own settings.
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GATEHOUSE_")))
  // A free gRPC port unless a test names one: servers of parallel tests must not all claim the default 50443.
  return { ...base, NODE_OPTIONS: "", GATEHOUSE_GRPC_ADDR: "127.0.0.1:0", ...env }
}

/** The outcome of a finished CLI run. */
export interface CliResult {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const collect = (child: ChildProcess) => {
  const output = { stdout: "", stderr: "" }
  child.stdout?.on("data", (chunk) => (output.stdout += chunk))
  child.stderr?.on("data", (chunk) => (output.stderr += chunk))
  const exited = new Promise<CliResult>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, ...output }))
  )
  return { output, exited }
}

/** Runs `gatehouse <args>` to completion; `input` is written to its stdin (which is then closed). */
export const runCli = (
  args: ReadonlyArray<string>,
  options: {
    readonly cwd?: string
    readonly env?: Readonly<Record<string, string>>
    readonly input?: string
  } = {}
): Effect.Effect<CliResult> =>
  Effect.promise(() => {
    const child = spawn(process.execPath, gatehouseCommand(args), {
      cwd: options.cwd ?? repoRoot,
      env: childEnv(options.env)
    })
    const exited = collect(child).exited
    if (options.input !== undefined) child.stdin.end(options.input)
    return exited
  })

/** A `gatehouse serve` process that is up and listening. */
export interface ServerProcess {
  readonly child: ChildProcess
  /** `http://127.0.0.1:<port>/api/v1` as logged by the server. */
  readonly baseUrl: string
  /** `127.0.0.1:<port>` of the gRPC API, as logged by the server. */
  readonly grpcAddress: string
  readonly output: { readonly stdout: string; readonly stderr: string }
  /** Sends SIGTERM and waits for the exit. */
  readonly stop: () => Effect.Effect<CliResult>
  readonly exited: Promise<CliResult>
}

/**
 * Starts `gatehouse serve <args>` and waits for its "listening on" log lines (HTTP and gRPC) (scoped: killed at the end of the
 * test if still running). Fails with the output if the process exits first.
 */
export const spawnServer = (
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env?: Readonly<Record<string, string>>
    /** Node options before the program (V8 flags such as `--trace-gc`, which NODE_OPTIONS does not take). */
    readonly nodeArgs?: ReadonlyArray<string>
  }
): Effect.Effect<ServerProcess, CliResult, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<ServerProcess, CliResult>((resume) => {
      const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...gatehouseCommand(["serve", ...args])], {
        cwd: options.cwd,
        env: childEnv({ GATEHOUSE_LOG_FORMAT: "json", ...options.env })
      })
      const { output, exited } = collect(child)
      let started = false
      const onData = () => {
        const match = /listening on (http:\/\/[^\s"]+\/api\/v1)/.exec(output.stdout)
        const grpc = /gRPC listening on ([^\s"]+)/.exec(output.stdout)
        if (match !== null && grpc !== null && !started) {
          started = true
          const stop = () =>
            Effect.promise(() => {
              child.kill("SIGTERM")
              return exited
            })
          resume(Effect.succeed({ child, baseUrl: match[1]!, grpcAddress: grpc[1]!, output, stop, exited }))
        }
      }
      child.stdout.on("data", onData)
      exited.then((result) => {
        if (!started) resume(Effect.fail(result))
      })
    }),
    (server) => Effect.sync(() => server.child.exitCode === null && server.child.kill("SIGKILL"))
  )
