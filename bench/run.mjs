/**
 * `npm run bench`: builds the packages (the HTTP, memory and validation-latency benchmarks measure the built
 * server, as production runs it), then runs every benchmark one after the other, each in its own process. Each
 * one's output is also saved to bench/results/<name>.txt; the server benchmarks write bench/results/<name>.json too.
 *
 *   npm run bench [-- --only=route-validation,http-health,http-stack,http-cpu,sign-in,memory,idle,auth-requests,auth-core,validation-latency,uptime,hypervisor,docker,cli-startup] [--no-build] [--quick]
 *
 * --quick runs every benchmark briefly (a smoke test of the scripts; its numbers are not worth reporting).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const tsx = path.join(root, "node_modules/.bin/tsx")
const resultsDir = path.join(root, "bench/results")

const benchmarks = {
  // Imports @gatehouse-edge/core: measure the sources, like its README section says.
  "route-validation": {
    args: ["--conditions=@gatehouse-edge/source", "bench/route-validation.ts"],
    quick: ["2000", "3"]
  },
  "http-health": { args: ["bench/http-health.ts"], quick: ["--rounds=1", "--duration=3", "--warmup=1"] },
  "http-stack": { args: ["bench/http-stack.ts"], quick: ["--rounds=1", "--duration=3", "--warmup=1"] },
  "http-cpu": { args: ["bench/http-cpu.ts"], quick: ["--chunks=2", "--requests=300"] },
  memory: { args: ["bench/memory.ts"], quick: ["--duration=3"] },
  idle: { args: ["bench/idle.ts"], quick: ["--rounds=1", "--duration=2"] },
  "sign-in": {
    args: ["bench/sign-in.ts"],
    quick: ["--rounds=1", "--duration=2", "--warmup=1", "--logins=3"]
  },
  "auth-requests": {
    args: ["bench/auth-requests.ts"],
    quick: ["--rounds=1", "--duration=2", "--warmup=1", "--waiters=500"]
  },
  // The auth-request core alone, in-process, from the sources.
  "auth-core": {
    args: ["--conditions=@gatehouse-edge/source", "bench/auth-core.ts"],
    quick: ["--rounds=1", "--duration=1"]
  },
  "validation-latency": {
    args: ["bench/validation-latency.ts"],
    quick: ["--rounds=1", "--duration=3", "--warmup=1"]
  },
  // Imports @gatehouse-edge/core and the server composition from the sources (in-process, on a SQLite file).
  uptime: {
    args: ["--conditions=@gatehouse-edge/source", "bench/uptime.ts"],
    quick: ["--routes=100", "--live=30", "--requests=20"]
  },
  // Needs /usr/sbin/sshd (Debian openssh-server): node pve1's journals come from a real sshd.
  hypervisor: { args: ["bench/hypervisor.ts"], quick: ["--clients=100", "--duration=3", "--lines=5"] },
  // Needs dockerd (Debian docker.io) and the docker CLI: a real engine, and `docker logs -f` as the baseline.
  docker: { args: ["bench/docker.ts"], quick: ["--clients=20", "--duration=3", "--lines=20000", "--rounds=1"] },
  "cli-startup": { args: ["bench/cli-startup.ts"], quick: ["--runs=1"] }
}

const flags = process.argv.slice(2)
for (const flag of flags)
  if (!/^--(only=.+|no-build|quick)$/.test(flag)) {
    console.error(`unknown argument ${flag}; usage: npm run bench [-- --only=a,b] [--no-build] [--quick]`)
    process.exit(2)
  }
const only =
  flags
    .find((f) => f.startsWith("--only="))
    ?.slice(7)
    .split(",") ?? Object.keys(benchmarks)
for (const name of only)
  if (!(name in benchmarks)) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(benchmarks).join(", ")}`)
    process.exit(2)
  }
const quick = flags.includes("--quick")

/** Runs a command with inherited stdin, output shown and (optionally) copied to a file. */
const run = (command, args, logFile) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ["inherit", "pipe", "pipe"] })
    const log = logFile === undefined ? undefined : fs.createWriteStream(logFile)
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk)
      log?.write(chunk)
    })
    child.stderr.on("data", (chunk) => {
      process.stderr.write(chunk)
      log?.write(chunk)
    })
    child.on("exit", (code, signal) => {
      log?.end()
      resolve(code ?? (signal === null ? 1 : 128))
    })
  })

const started = performance.now()
const failed = []
if (!flags.includes("--no-build") && only.some((name) => name !== "route-validation")) {
  console.log("=== npm run build (the server benchmarks run the built server)")
  const code = await run("npm", ["run", "build", "--silent"])
  if (code !== 0) {
    console.error("build failed: the benchmarks would run the sources through tsx instead; stopping")
    process.exit(code)
  }
}
fs.mkdirSync(resultsDir, { recursive: true })
for (const name of only) {
  const { args, quick: quickArgs } = benchmarks[name]
  console.log(`\n=== ${name}${quick ? " (quick)" : ""}`)
  const t = performance.now()
  const code = await run(tsx, [...args, ...(quick ? quickArgs : [])], path.join(resultsDir, `${name}.txt`))
  console.log(
    `=== ${name}: ${code === 0 ? "done" : `FAILED (exit ${code})`} in ${Math.round((performance.now() - t) / 1000)} s`
  )
  if (code !== 0) failed.push(name)
}
console.log(
  `\nall benchmarks: ${Math.round((performance.now() - started) / 1000)} s${failed.length > 0 ? `; failed: ${failed.join(", ")}` : ""}`
)
process.exit(failed.length > 0 ? 1 : 0)
