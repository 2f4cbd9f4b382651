/**
 * How long a `gatehouse` command takes from spawn to exit, with Node's compile cache and without it, next to a bare
 * `node -e 0` started in the same run: `--version`, `validate` of a 20-route file, `sessions list` against a running
 * server (the HTTP client), `auth list` against it (the gRPC client), and `serve` until `/api/v1/health` answers
 * (0 routes; it is stopped each time).
 *
 *   npx tsx bench/cli-startup.ts [--runs=9] [--compare=<another build's bin.js>]
 *
 * Runs the built `dist/` (`npm run build` first), without the caller's GATEHOUSE_* and compile-cache variables
 * (`cleanEnv` in support.ts): each variant sets its own. The compile cache is Node's (22.1 and later; Node 20 has none):
 * the command turns it on (`server/src/CompileCache.ts`; not for `serve`, whose two columns therefore measure the
 * same thing) and `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Its default directory is under the temporary
 * directory, here a fresh one (`TMPDIR`), filled by one run of each command before the measured ones. `--compare`
 * adds another build's `bin.js`, run as the "cache" column is (it must live inside the repository to resolve its
 * packages, e.g. a copy of `packages/server/dist` as `packages/server/dist-old`).
 * Runs are interleaved: each round runs every command once in every variant. Medians, and their ratio to the bare
 * `node` start of the same run.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { buildState, builtBin } from "../test/support/BuiltCli.js"
import {
  cleanEnv,
  closedPortRange,
  environment,
  fmt,
  freePort,
  median,
  parseArgs,
  printTable,
  routesYaml,
  startGatehouse,
  writeResults
} from "./support.js"

const args = parseArgs({ runs: "9", compare: "" })
const runs = Number(args.runs)
const build = buildState()
if (build !== "current") throw new Error(`the build is ${build}: run \`npm run build\` first`)
const hasCompileCache = typeof (await import("node:module")).enableCompileCache === "function"
const compareBin = args.compare === "" ? undefined : path.resolve(args.compare!)

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-cli-startup-"))
const routesFile = path.join(dir, "routes.yml")
fs.writeFileSync(routesFile, routesYaml(20, true, closedPortRange(20)))

// One server for the client commands, with a gRPC port of its own (the default 50443 may be taken).
const grpcPort = await freePort()
const server = await startGatehouse({
  routes: 0,
  health: false,
  mode: "dist",
  portBase: closedPortRange(1),
  env: { GATEHOUSE_GRPC_ADDR: `127.0.0.1:${grpcPort}` }
})
const keyFile = path.join(server.dir, "data", "admin.key")

interface Variant {
  readonly name: string
  readonly bin: string
  readonly env: Readonly<Record<string, string>>
}
const variants: ReadonlyArray<Variant> = [
  { name: "no cache", bin: builtBin, env: { NODE_DISABLE_COMPILE_CACHE: "1" } },
  ...(hasCompileCache ? [{ name: "cache", bin: builtBin, env: { TMPDIR: dir } }] : []),
  ...(compareBin === undefined ? [] : [{ name: "compared", bin: compareBin, env: { TMPDIR: dir } }])
]

/** Runs `node <args>` to its exit; its wall time in ms. Fails on a non-zero exit. */
const timed = (nodeArgs: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, nodeArgs, {
      cwd: dir,
      env: { ...cleanEnv(), NODE_OPTIONS: "", ...env },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("close", (code) =>
      code === 0
        ? resolve(performance.now() - started)
        : reject(new Error(`node ${nodeArgs.join(" ")} exited with ${code}: ${stderr}`))
    )
  })

/** Starts `serve` with 0 routes and times it until `/api/v1/health` answers, then stops it. */
const timedServe = async (variant: Variant): Promise<number> => {
  const started = performance.now()
  const gatehouse = await startGatehouse({
    routes: 0,
    health: false,
    mode: "dist",
    portBase: closedPortRange(1),
    bin: variant.bin,
    env: variant.env
  })
  const ms = performance.now() - started
  await gatehouse.stop()
  return ms
}

const clientEnv = { GATEHOUSE_API_KEY: fs.readFileSync(keyFile, "utf8").trim() }
const commands: ReadonlyArray<{
  readonly name: string
  readonly run: (variant: Variant) => Promise<number>
}> = [
  { name: "gatehouse --version", run: (v) => timed([v.bin, "--version"], v.env) },
  { name: "gatehouse validate (20 routes)", run: (v) => timed([v.bin, "validate", routesFile], v.env) },
  {
    name: "gatehouse sessions list (HTTP)",
    run: (v) => timed([v.bin, "sessions", "list", "--server", server.origin], { ...v.env, ...clientEnv })
  },
  {
    name: "gatehouse auth list (gRPC)",
    run: (v) => timed([v.bin, "auth", "list", "--grpc", `127.0.0.1:${grpcPort}`], { ...v.env, ...clientEnv })
  },
  { name: "gatehouse serve, until it answers", run: timedServe }
]

const bare: Array<number> = []
const samples = new Map<string, Array<number>>()
try {
  // Fill the cache (and the page cache) before measuring.
  for (const variant of variants) for (const command of commands) await command.run(variant)
  for (let round = 0; round < runs; round++) {
    bare.push(await timed(["-e", "0"], {}))
    for (const command of commands)
      for (const variant of variants) {
        const key = `${command.name}|${variant.name}`
        samples.set(key, [...(samples.get(key) ?? []), await command.run(variant)])
      }
  }
} finally {
  await server.stop()
  fs.rmSync(dir, { recursive: true, force: true })
}

const bareMs = median(bare)
console.log(
  `\nWall time from spawn to exit (serve: until it answers), ms, median of ${runs} interleaved runs; ` +
    `× bare node (node -e 0: ${fmt(bareMs)} ms)`
)
console.log(hasCompileCache ? "" : "(this Node has no compile cache: one column)")
const header = ["command", ...variants.flatMap((v) => [`${v.name} ms`, `× node`])]
if (hasCompileCache) header.push("cache / no cache")
const rows = commands.map((command) => {
  const ms = variants.map((v) => median(samples.get(`${command.name}|${v.name}`) ?? []))
  const row = [command.name, ...ms.flatMap((value) => [fmt(value), fmt(value / bareMs, 1)])]
  if (hasCompileCache) row.push(fmt(ms[1]! / ms[0]!, 2))
  return row
})
printTable(header, rows)
writeResults("cli-startup", {
  environment: environment(),
  runs,
  bareMs: bare,
  samples: Object.fromEntries(samples)
})
