/**
 * Shared plumbing of the HTTP and memory benchmarks: route generation, starting the Gatehouse server and the bare
 * `node:http` baseline as separate processes, the load generator in its own process, and /proc readings.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { buildState, builtBin } from "../test/support/BuiltCli.js"

export const repoRoot = path.resolve(import.meta.dirname, "..")
export const resultsDir = path.join(repoRoot, "bench", "results")

// ---------------------------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------------------------

/** `--name=value` / `--flag` arguments; positional arguments are rejected so a typo fails loudly. */
export const parseArgs = (defaults: Record<string, string>): Record<string, string> => {
  const out = { ...defaults }
  for (const arg of process.argv.slice(2)) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg)
    if (match === null || !(match[1]! in defaults)) {
      const known = Object.keys(defaults)
        .map((k) => `--${k}=${defaults[k]}`)
        .join(" ")
      throw new Error(`unknown argument ${arg}; known (with defaults): ${known}`)
    }
    out[match[1]!] = match[2] ?? "true"
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// Processes and /proc
// ---------------------------------------------------------------------------------------------------------------

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

/** Resident set size now and at its peak (VmHWM), in KiB, from /proc/<pid>/status. */
export const memoryOf = (pid: number): { rssKiB: number; peakKiB: number } => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN)
  return { rssKiB: field("VmRSS"), peakKiB: field("VmHWM") }
}

/** CPU time (user + system) the process has used, in ms, from /proc/<pid>/stat. */
export const cpuMsOf = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  // The command name (field 2) may contain spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks
}

/** How many read and write system calls the process has made (socket reads and writes included), from /proc/<pid>/io. */
export const syscallsOf = (pid: number): { reads: number; writes: number } => {
  const io = fs.readFileSync(`/proc/${pid}/io`, "utf8")
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? Number.NaN)
  return { reads: field("syscr"), writes: field("syscw") }
}

/** Measures a process's CPU use over `ms`: percent of one core. */
export const cpuPercentOver = async (pid: number, ms: number): Promise<number> => {
  const before = cpuMsOf(pid)
  const start = performance.now()
  await sleep(ms)
  return ((cpuMsOf(pid) - before) / (performance.now() - start)) * 100
}

/**
 * Waits until the RSS stops moving: three 1 s samples within 2% of each other, at least `minMs` after the call,
 * at most `maxMs`. Returns how long it took and whether it settled.
 */
export const waitForSteadyRss = async (pid: number, minMs = 5_000, maxMs = 30_000) => {
  const start = performance.now()
  const samples: Array<number> = []
  for (;;) {
    await sleep(1_000)
    samples.push(memoryOf(pid).rssKiB)
    const last = samples.slice(-3)
    const elapsed = performance.now() - start
    const steady = last.length === 3 && Math.max(...last) <= Math.min(...last) * 1.02
    if ((steady && elapsed >= minMs) || elapsed >= maxMs) return { ms: Math.round(elapsed), steady }
  }
}

/** A free TCP port on 127.0.0.1 (bound then released; the benchmarks start their servers right after). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Ports with a listening TCP socket on this machine (IPv4 and IPv6), from /proc/net/tcp{,6}. */
const listeningPorts = (): Set<number> => {
  const ports = new Set<number>()
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!fs.existsSync(file)) continue
    for (const line of fs.readFileSync(file, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/)
      if (cols[3] === "0A") ports.add(Number.parseInt(cols[1]!.split(":")[1]!, 16))
    }
  }
  return ports
}

/** The first port ≥ `from` such that `count` consecutive ports have no listener (the routes' closed targets). */
export const closedPortRange = (count: number, from = 41_000): number => {
  const open = listeningPorts()
  for (let base = from; base + count < 65_000; base += 1_000) {
    let clear = true
    for (let p = base; p < base + count && clear; p++) clear = !open.has(p)
    if (clear) return base
  }
  throw new Error(`no ${count} consecutive closed ports found`)
}

/** Waits for a child to exit after SIGTERM (graceful shutdown), SIGKILL after `ms`. */
export const stopProcess = async (child: ChildProcess, ms = 15_000): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), ms)
  await exited
  clearTimeout(timer)
}

const waitUntil = async (what: string, ms: number, probe: () => Promise<boolean>, child: ChildProcess) => {
  const deadline = performance.now() + ms
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what}: the process exited with ${child.exitCode}`)
    if (await probe().catch(() => false)) return
    await sleep(50)
  }
  throw new Error(`${what}: not ready after ${ms} ms`)
}

// ---------------------------------------------------------------------------------------------------------------
// Routes and the Gatehouse server
// ---------------------------------------------------------------------------------------------------------------

/**
 * `count` HTTP routes to 127.0.0.1 ports in [portBase, portBase + count), all closed. With `health` each route
 * has the default health check (HTTP HEAD / every 5 s, 5 s timeout, 3 retries): every check is a refused
 * connection, the cheapest check there is, so the monitors' cost measured with it is a lower bound.
 * `healthInterval` (a Go duration) replaces the default interval.
 */
export const routesYaml = (count: number, health: boolean, portBase: number, healthInterval?: string): string => {
  const lines = [`# ${count} generated benchmark routes (health checks ${health ? "on" : "disabled"})`]
  for (let i = 0; i < count; i++) {
    lines.push(`app-${String(i).padStart(4, "0")}:`, "  host: 127.0.0.1", `  port: ${portBase + i}`)
    if (!health) lines.push("  healthcheck: {disable: true}")
    else if (healthInterval !== undefined) lines.push(`  healthcheck: {interval: ${healthInterval}}`)
  }
  return `${lines.join("\n")}\n`
}

/** Which server build the benchmarks run: the tsup output (`npm run build`) or the sources through tsx. */
export type ServerMode = "dist" | "source"

/** `dist` when every package has been built, else `source`; an explicit choice wins. */
export const resolveServerMode = (requested: string): ServerMode => {
  const built = buildState() !== "missing"
  if (requested === "dist" && !built) throw new Error("--server=dist but the packages are not built: npm run build")
  if (requested === "dist" || requested === "source") return requested
  return built ? "dist" : "source"
}

/** Whether some source file is newer than the build (benchmarking a stale build would mislead). */
export const distIsStale = (): boolean => buildState() === "stale"

/** Server settings a run asks for explicitly, as `BENCH_GATEHOUSE_<SETTING>=value` (e.g. a log level to compare). */
const benchEnv = () =>
  Object.fromEntries(
    Object.entries(process.env)
      .filter(([k]) => k.startsWith("BENCH_GATEHOUSE_"))
      .map(([k, v]) => [k.slice("BENCH_".length), v])
  )

/**
 * The caller's environment without GATEHOUSE_* variables, so only the benchmark's settings apply, and without Node's
 * compile-cache settings, so the command caches as it does for a user (bench/cli-startup.ts sets them per variant).
 */
export const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("GATEHOUSE_") && k !== "NODE_COMPILE_CACHE" && k !== "NODE_DISABLE_COMPILE_CACHE"
    )
  )

/** A running `gatehouse serve` process. */
export interface GatehouseProcess {
  readonly child: ChildProcess
  readonly pid: number
  readonly origin: string
  readonly apiKey: string
  readonly dir: string
  readonly startupMs: number
  /** `performance.now()` when the process was spawned (a --cpu-prof profile starts about then). */
  readonly spawnedAt: number
  readonly stop: () => Promise<void>
}

/**
 * Starts `gatehouse serve --http 127.0.0.1:<port> --data <tmp>/data` with `GATEHOUSE_ROUTES_DIR=<tmp>/routes` as a
 * separate process (`node packages/server/dist/bin.js`, or `node --import tsx` on the sources: one process either
 * way, so its PID is the server's). Logs (one JSON line per request at the default `info` level, as in
 * production) go to `<tmp>/server.log`. Ready when `/api/v1/health` lists every route.
 */
export const startGatehouse = async (options: {
  readonly routes: number
  readonly health: boolean
  /** The checks' interval instead of the default 5 s (a Go duration, e.g. `1h`), when `health` is on. */
  readonly healthInterval?: string | undefined
  readonly mode: ServerMode
  readonly portBase: number
  readonly nodeArgs?: ReadonlyArray<string>
  /** Another build's `bin.js` to run instead of `packages/server/dist/bin.js` (`dist` mode only). */
  readonly bin?: string
  /** More environment for the server (e.g. `GATEHOUSE_LOG_LEVEL`). */
  readonly env?: Readonly<Record<string, string>>
  /** A `gatehouse.yml` for the server (`--config`), e.g. with a Proxmox cluster. */
  readonly configYaml?: string
}): Promise<GatehouseProcess> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-"))
  const routesDir = path.join(dir, "routes")
  fs.mkdirSync(routesDir)
  if (options.routes > 0)
    fs.writeFileSync(
      path.join(routesDir, "routes.yml"),
      routesYaml(options.routes, options.health, options.portBase, options.healthInterval)
    )
  const port = await freePort()
  const configArgs: Array<string> = []
  if (options.configYaml !== undefined) {
    fs.writeFileSync(path.join(dir, "gatehouse.yml"), options.configYaml)
    configArgs.push("--config", path.join(dir, "gatehouse.yml"))
  }
  const entry =
    options.mode === "dist"
      ? [options.bin ?? builtBin]
      : [
          "--conditions=@gatehouse-edge/source",
          // By URL: the server runs in its temp directory, where a bare "tsx" would not resolve.
          "--import",
          import.meta.resolve("tsx"),
          path.join(repoRoot, "packages/server/src/bin.ts")
        ]
  const log = fs.openSync(path.join(dir, "server.log"), "w")
  const started = performance.now()
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      ...entry,
      "serve",
      "--http",
      `127.0.0.1:${port}`,
      "--data",
      path.join(dir, "data"),
      ...configArgs
    ],
    {
      cwd: dir,
      env: {
        ...cleanEnv(),
        GATEHOUSE_ROUTES_DIR: routesDir,
        // A free port: the default 50443 may be taken, and the HTTP benchmarks do not call gRPC.
        GATEHOUSE_GRPC_ADDR: "127.0.0.1:0",
        ...benchEnv(),
        ...options.env
      },
      stdio: ["ignore", log, log]
    }
  )
  fs.closeSync(log)
  const origin = `http://127.0.0.1:${port}`
  const keyFile = path.join(dir, "data", "admin.key")
  let apiKey = ""
  const stop = async () => {
    await stopProcess(child)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitUntil(
      "gatehouse serve",
      60_000,
      async () => {
        if (apiKey === "") {
          if (!fs.existsSync(keyFile)) return false
          apiKey = fs.readFileSync(keyFile, "utf8").trim()
        }
        const response = await fetch(`${origin}/api/v1/health`, { headers: { authorization: `Bearer ${apiKey}` } })
        if (response.status !== 200) return false
        return Object.keys((await response.json()) as object).length === options.routes
      },
      child
    )
  } catch (error) {
    const tail = fs.readFileSync(path.join(dir, "server.log"), "utf8").split("\n").slice(-20).join("\n")
    await stop()
    throw new Error(`${(error as Error).message}\n--- server.log (tail)\n${tail}`)
  }
  const startupMs = Math.round(performance.now() - started)
  return { child, pid: child.pid!, origin, apiKey, dir, startupMs, spawnedAt: started, stop }
}

/** A running bare `node:http` baseline that answers every request with fixed bytes. */
export interface BaselineProcess {
  readonly child: ChildProcess
  readonly pid: number
  readonly origin: string
  readonly stop: () => Promise<void>
}

/** Starts `node bench/baseline-server.mjs <port> <bodyFile>` (no loader, no dependencies). */
export const startBaseline = async (bodyFile: string): Promise<BaselineProcess> => {
  const port = await freePort()
  const child = spawn(process.execPath, [path.join(repoRoot, "bench/baseline-server.mjs"), String(port), bodyFile], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve())
    child.once("exit", (code) => reject(new Error(`baseline server exited with ${code}`)))
  })
  await ready
  return { child, pid: child.pid!, origin: `http://127.0.0.1:${port}`, stop: () => stopProcess(child) }
}

/** A running `bench/live-targets.mjs`: `count` HTTP servers on consecutive ports from `portBase`, answering 200. */
export interface LiveTargetsProcess {
  readonly pid: number
  readonly stop: () => Promise<void>
}

/** Starts live health-check targets on `portBase` to `portBase + count - 1` (see bench/live-targets.mjs). */
export const startLiveTargets = async (portBase: number, count: number): Promise<LiveTargetsProcess> => {
  const child = spawn(
    process.execPath,
    [path.join(repoRoot, "bench/live-targets.mjs"), String(portBase), String(count)],
    { stdio: ["ignore", "pipe", "inherit"] }
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve())
    child.once("exit", (code) => reject(new Error(`live targets exited with ${code}`)))
  })
  return { pid: child.pid!, stop: () => stopProcess(child) }
}

// ---------------------------------------------------------------------------------------------------------------
// Load
// ---------------------------------------------------------------------------------------------------------------

/** What one autocannon run reports (see bench/load-worker.mjs). */
export interface LoadResult {
  readonly requestsPerSecond: number
  readonly totalRequests: number
  readonly bytesPerResponse: number
  readonly latencyMs: { readonly mean: number; readonly p50: number; readonly p90: number; readonly p99: number }
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  /** The load generator's own CPU use, percent of one core (near 100: it, not the server, may be the limit). */
  readonly loaderCpuPercent: number
  /** The server's CPU use during the run, percent of one core. */
  readonly serverCpuPercent: number
}

export interface LoadOptions {
  readonly url: string
  readonly headers?: Record<string, string>
  readonly connections: number
  readonly durationS: number
  /** Requests per second across all connections (autocannon's `overallRate`); absent: as fast as answers come. */
  readonly overallRate?: number | undefined
}

/** Runs autocannon in its own process (bench/load-worker.mjs) against `url` and samples the server's CPU. */
export const runLoad = async (serverPid: number, options: LoadOptions): Promise<LoadResult> => {
  const child = spawn(process.execPath, [path.join(repoRoot, "bench/load-worker.mjs"), JSON.stringify(options)], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  let out = ""
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()))
  const cpuBefore = cpuMsOf(serverPid)
  const started = performance.now()
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
  const serverCpuPercent = ((cpuMsOf(serverPid) - cpuBefore) / (performance.now() - started)) * 100
  if (code !== 0) throw new Error(`load worker exited with ${code}`)
  return { ...(JSON.parse(out) as Omit<LoadResult, "serverCpuPercent">), serverCpuPercent }
}

/** The server's CPU time per answered request, in µs: the steady measure when the machine's cores are shared. */
export const cpuMicrosPerRequest = (result: LoadResult): number =>
  (result.serverCpuPercent / 100) * (1_000_000 / result.requestsPerSecond)

/** Fails when a run had errors, timeouts or non-2xx answers: its req/s would not mean what the table says. */
export const checkClean = (label: string, result: LoadResult) => {
  if (result.errors + result.timeouts + result.non2xx > 0 || result.totalRequests === 0)
    throw new Error(
      `${label}: ${result.totalRequests} requests, ${result.errors} errors, ${result.timeouts} timeouts, ` +
        `${result.non2xx} non-2xx: not a valid measurement`
    )
}

// ---------------------------------------------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------------------------------------------

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Prints rows as an aligned table (first column left-aligned, the rest right-aligned). */
export const printTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>) => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")
  console.log(line(header))
  console.log(widths.map((w) => "-".repeat(w)).join("  "))
  for (const row of rows) console.log(line(row))
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits }) : "-"

export const mib = (kib: number) => fmt(kib / 1024, 1)

/** Writes `bench/results/<name>.json` and says so. */
export const writeResults = (name: string, data: unknown) => {
  fs.mkdirSync(resultsDir, { recursive: true })
  const file = path.join(resultsDir, `${name}.json`)
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`)
  console.log(`\nresults: ${path.relative(process.cwd(), file)}`)
}

/** The machine and software a result was measured on. */
export const environment = () => ({
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
  commit: (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repoRoot, encoding: "utf8" }).trim()
    } catch {
      return "unknown"
    }
  })(),
  date: new Date().toISOString()
})

// ---------------------------------------------------------------------------------------------------------------
// The rest of the machine
// ---------------------------------------------------------------------------------------------------------------

interface ProcessTimes {
  readonly ppid: number
  /** CPU time of the process itself. */
  readonly cpuMs: number
  /** CPU time of its children that have exited and been waited for (and, through them, of their children). */
  readonly childrenMs: number
}

/** The CPU time the whole machine has spent (every core, all but idle and steal) and each process's, at one moment. */
export interface MachineTimes {
  readonly busyMs: number
  readonly processes: Map<number, ProcessTimes>
}

/** Reads /proc/stat and every /proc/<pid>/stat (processes gone meanwhile are skipped). */
export const processTimes = (): MachineTimes => {
  const cpu = fs.readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.split(/\s+/).slice(1).map(Number)
  // user, nice, system, irq, softirq: a process's system time includes the interrupts handled while it ran.
  const busyMs = ((cpu[0]! + cpu[1]! + cpu[2]! + cpu[5]! + cpu[6]!) * 1000) / clockTicks
  const processes = new Map<number, ProcessTimes>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
    } catch {
      continue
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    processes.set(Number(entry), {
      ppid: Number(fields[1]),
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks,
      childrenMs: ((Number(fields[13]) + Number(fields[14])) * 1000) / clockTicks
    })
  }
  return { busyMs, processes }
}

/**
 * CPU time the machine spent between two `processTimes` snapshots on anything but the benchmark's own processes:
 * the descendants of `roots`, and of a process whose command line names `marker` (a daemon's directory:
 * containerd's shims leave their parent, and a container's processes are the shims' children), with the children
 * they waited for meanwhile (`yes | head` in a container). On a shared machine this is what others took from the
 * cores during a measurement, processes that came and went in between included.
 */
export const othersCpuMs = (
  before: MachineTimes,
  after: MachineTimes,
  roots: ReadonlyArray<number>,
  marker: string
): number => {
  const ours = new Set<number>(roots)
  for (const [pid] of after.processes) {
    let cmdline = ""
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8")
    } catch {}
    if (cmdline.includes(marker)) ours.add(pid)
  }
  const isOurs = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 64; p = after.processes.get(p)?.ppid ?? 0, depth++) {
      if (ours.has(p)) return true
    }
    return false
  }
  let oursMs = 0
  for (const [pid, times] of after.processes) {
    if (!isOurs(pid)) continue
    const earlier = before.processes.get(pid)
    oursMs += times.cpuMs + times.childrenMs - (earlier === undefined ? 0 : earlier.cpuMs + earlier.childrenMs)
  }
  return after.busyMs - before.busyMs - oursMs
}
