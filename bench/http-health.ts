/**
 * `GET /api/v1/health` with 1,000 routes: the Gatehouse server vs a bare `node:http` server returning the same
 * JSON bytes, same load tool (autocannon, in its own process), same connections and duration.
 *
 *   npx tsx bench/http-health.ts [--routes=1000] [--rounds=3] [--duration=10] [--warmup=3] [--connections=10]
 *                                [--variants=off,on,empty] [--server=auto|dist|source] [--profile=off] [--rate=<req/s>]
 *
 * Variants (1,000 HTTP routes to closed 127.0.0.1 ports):
 *   off    every route has `healthcheck: {disable: true}`: only the API is measured
 *   on     the default health check (HEAD / every 5 s): 1,000 monitors run during the load, as in production
 *   hourly (only when asked for) the same check every hour: the map of `on` (each route checked once, at
 *          start), but no check runs during the load; next to `on`, what the monitors cost a loaded server
 *   empty  a control with 0 routes (the body is `{}`): the per-request cost of the HTTP stack alone
 * Each is compared with its own baseline, which serves the bytes that variant's server returned (the "on" map is
 * larger: check timestamps and latencies). Every measurement is a fresh process, alone on the machine (apart from
 * the load generator); rounds are interleaved and the table shows medians. `--profile` adds one profiled run of the
 * given variant's server (`node --cpu-prof`) and prints where its CPU time goes.
 *
 * `--rate` sends a fixed number of requests per second instead of as many as the server answers. Both servers then
 * answer the same load, and the comparison is the server's CPU time per request (node:http's / Gatehouse's): on a
 * machine whose cores the load generator shares, that moves less between rounds than req/s, whose baseline is
 * bound by the load generator.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { summarizeProfile } from "./cpu-profile.js"
import {
  checkClean,
  closedPortRange,
  cpuMicrosPerRequest,
  cpuPercentOver,
  distIsStale,
  environment,
  fmt,
  type LoadResult,
  median,
  memoryOf,
  mib,
  parseArgs,
  printTable,
  resolveServerMode,
  resultsDir,
  runLoad,
  sleep,
  startBaseline,
  startGatehouse,
  writeResults
} from "./support.js"

const args = parseArgs({
  routes: "1000",
  rounds: "3",
  duration: "10",
  warmup: "3",
  connections: "10",
  variants: "off,on,empty",
  server: "auto",
  profile: "",
  rate: ""
})
const routes = Number(args.routes)
const rounds = Number(args.rounds)
const durationS = Number(args.duration)
const warmupS = Number(args.warmup)
const connections = Number(args.connections)
const overallRate = args.rate === "" ? undefined : Number(args.rate)
if (overallRate !== undefined && !(overallRate > 0))
  throw new Error(`--rate takes requests per second; got ${args.rate}`)
const allVariants = ["off", "on", "hourly", "empty"] as const
type Variant = (typeof allVariants)[number]
const isVariant = (v: string): v is Variant => (allVariants as ReadonlyArray<string>).includes(v)
const variants = args.variants!.split(",").map((v) => {
  if (!isVariant(v)) throw new Error(`--variants takes a list of ${allVariants.join(", ")}; got ${v}`)
  return v
})
const label = (v: Variant) => (v === "empty" ? "0 routes" : v === "hourly" ? "health on, hourly" : `health ${v}`)
const serverOptions = (v: Variant) => ({
  routes: v === "empty" ? 0 : routes,
  health: v === "on" || v === "hourly",
  healthInterval: v === "hourly" ? "1h" : undefined
})
const mode = resolveServerMode(args.server!)
const portBase = closedPortRange(routes)
const startEnvironment = environment()
const bodyDir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-body-"))

/** One measurement of one server: idle state, then warm-up and the measured load. */
interface Sample {
  readonly target: string
  readonly round: number
  readonly startupMs?: number
  readonly idleCpuPercent: number
  readonly rssIdleKiB: number
  readonly rssAfterLoadKiB: number
  readonly peakRssKiB: number
  readonly load: LoadResult
}

const samples: Array<Sample> = []

/** What two servers are compared by: req/s under as much load as they take, CPU per request at a fixed rate. */
interface Measured {
  readonly requestsPerSecond: number
  readonly cpuMicrosPerRequest: number
}
const measuredOf = (load: LoadResult): Measured => ({
  requestsPerSecond: load.requestsPerSecond,
  cpuMicrosPerRequest: cpuMicrosPerRequest(load)
})
const ratioOf = (server: Measured, base: Measured) =>
  overallRate === undefined
    ? server.requestsPerSecond / base.requestsPerSecond
    : base.cpuMicrosPerRequest / server.cpuMicrosPerRequest

const measure = async (target: string, round: number, pid: number, url: string, headers: Record<string, string>) => {
  const idleCpuPercent = await cpuPercentOver(pid, 3_000)
  const rssIdleKiB = memoryOf(pid).rssKiB
  await runLoad(pid, { url, headers, connections, durationS: warmupS, overallRate })
  const load = await runLoad(pid, { url, headers, connections, durationS, overallRate })
  checkClean(`${target} round ${round}`, load)
  if (overallRate !== undefined && load.requestsPerSecond < overallRate * 0.95)
    console.log(`\nnote: ${target} answered ${fmt(load.requestsPerSecond)} req/s of ${overallRate}: saturated`)
  const { rssKiB, peakKiB } = memoryOf(pid)
  return { target, round, idleCpuPercent, rssIdleKiB, rssAfterLoadKiB: rssKiB, peakRssKiB: peakKiB, load }
}

const gatehousePhase = async (variant: Variant, round: number) => {
  const server = await startGatehouse({ ...serverOptions(variant), mode, portBase })
  try {
    // With monitors, let the first checks (all 1,000 start together) and the status events settle first.
    await sleep(variant === "on" || variant === "hourly" ? 8_000 : 2_000)
    const url = `${server.origin}/api/v1/health`
    const headers = { authorization: `Bearer ${server.apiKey}` }
    const bodyFile = path.join(bodyDir, `${variant}.json`)
    if (!fs.existsSync(bodyFile)) {
      const response = await fetch(url, { headers })
      fs.writeFileSync(bodyFile, Buffer.from(await response.arrayBuffer()))
    }
    const sample = await measure(`gatehouse, ${label(variant)}`, round, server.pid, url, headers)
    samples.push({ ...sample, startupMs: server.startupMs })
  } finally {
    await server.stop()
  }
}

const baselinePhase = async (variant: Variant, round: number) => {
  const baseline = await startBaseline(path.join(bodyDir, `${variant}.json`))
  try {
    await sleep(1_000)
    samples.push(await measure(`node:http, ${label(variant)} bytes`, round, baseline.pid, baseline.origin, {}))
  } finally {
    await baseline.stop()
  }
}

console.log(
  `GET /api/v1/health, ${routes} routes; ${rounds} rounds of ${durationS} s (+${warmupS} s warm-up), ` +
    `${connections} connections${overallRate === undefined ? "" : ` at ${overallRate} req/s in all`}, autocannon in its own process; server: ${mode === "dist" ? "built dist/ (node packages/server/dist/bin.js)" : "sources through tsx (node --import tsx)"}`
)
if (startEnvironment.loadAverage[0]! > 0.5)
  console.log(`note: load average ${startEnvironment.loadAverage.join(" ")}: other processes compete for the CPUs`)
if (mode === "dist" && distIsStale()) console.log("warning: some source file is newer than the build: npm run build")
if (mode === "source") console.log("note: not built, so the sources run through tsx; npm run build to measure dist/")

try {
  for (let round = 1; round <= rounds; round++) {
    for (const variant of variants) {
      process.stdout.write(`round ${round}/${rounds}: ${label(variant)}: gatehouse`)
      await gatehousePhase(variant, round)
      process.stdout.write(", node:http")
      await baselinePhase(variant, round)
      const [server, base] = samples.slice(-2).map((s) => measuredOf(s.load)) as [Measured, Measured]
      const values =
        overallRate === undefined
          ? `${fmt(server.requestsPerSecond)} vs ${fmt(base.requestsPerSecond)} req/s`
          : `${fmt(server.cpuMicrosPerRequest, 1)} vs ${fmt(base.cpuMicrosPerRequest, 1)} CPU µs/request`
      console.log(`  ${values} (${fmt(ratioOf(server, base), 2)}×)`)
    }
  }
} finally {
  fs.rmSync(bodyDir, { recursive: true, force: true })
}

// ---- Summary: medians over rounds -----------------------------------------------------------------------------
const summary = [...new Set(samples.map((s) => s.target))].map((target) => {
  const of = samples.filter((s) => s.target === target)
  const m = (f: (s: Sample) => number) => median(of.map(f))
  return {
    target,
    requestsPerSecond: m((s) => s.load.requestsPerSecond),
    requestsPerSecondPerRound: of.map((s) => Math.round(s.load.requestsPerSecond)),
    latencyMs: { p50: m((s) => s.load.latencyMs.p50), p99: m((s) => s.load.latencyMs.p99) },
    bytesPerResponse: m((s) => s.load.bytesPerResponse),
    serverCpuPercent: m((s) => s.load.serverCpuPercent),
    cpuMicrosPerRequest: m((s) => cpuMicrosPerRequest(s.load)),
    loaderCpuPercent: m((s) => s.load.loaderCpuPercent),
    // The load tool's CPU per answer: it shares the 2 cores with the server, so what it spends is the server's loss.
    loaderMicrosPerRequest: m((s) => (s.load.loaderCpuPercent * 10_000) / s.load.requestsPerSecond),
    idleCpuPercent: m((s) => s.idleCpuPercent),
    rssIdleKiB: m((s) => s.rssIdleKiB),
    rssAfterLoadKiB: m((s) => s.rssAfterLoadKiB),
    startupMs: of[0]!.startupMs
  }
})
const byTarget = (t: string) => summary.find((s) => s.target === t)!
const ratios = variants.map((v) => {
  const server = byTarget(`gatehouse, ${label(v)}`)
  const base = byTarget(`node:http, ${label(v)} bytes`)
  const perRound = samples
    .filter((s) => s.target === server.target)
    .map((s) => {
      const b = samples.find((x) => x.target === base.target && x.round === s.round)!
      return ratioOf(measuredOf(s.load), measuredOf(b.load))
    })
  return { variant: label(v), ratio: ratioOf(server, base), perRound }
})

console.log()
printTable(
  [
    "server",
    "req/s",
    "p50 ms",
    "p99 ms",
    "bytes/resp",
    "server CPU",
    "CPU µs/req",
    "loader CPU",
    "loader µs/req",
    "idle CPU",
    "RSS idle",
    "RSS after"
  ],
  summary.map((s) => [
    s.target,
    fmt(s.requestsPerSecond),
    fmt(s.latencyMs.p50, 0),
    fmt(s.latencyMs.p99, 0),
    fmt(s.bytesPerResponse),
    `${fmt(s.serverCpuPercent)}%`,
    fmt(s.cpuMicrosPerRequest, 1),
    `${fmt(s.loaderCpuPercent)}%`,
    fmt(s.loaderMicrosPerRequest, 1),
    `${fmt(s.idleCpuPercent, 1)}%`,
    `${mib(s.rssIdleKiB)} MiB`,
    `${mib(s.rssAfterLoadKiB)} MiB`
  ])
)
console.log()
for (const r of ratios)
  console.log(
    `${overallRate === undefined ? "ratio gatehouse / node:http" : `CPU per request node:http / gatehouse at ${overallRate} req/s`}, ` +
      `${r.variant}: ${fmt(r.ratio, 2)}× ` +
      `(per round ${r.perRound.map((x) => fmt(x, 2)).join(", ")}${overallRate === undefined ? "; target ≥ 0.60" : ""})`
  )

// ---- Optional CPU profile of the server under the same load ---------------------------------------------------
let profile: unknown
if (args.profile !== "") {
  const variant = args.profile === "true" ? variants[0]! : args.profile!
  if (!isVariant(variant)) throw new Error(`--profile takes a variant (${allVariants.join(", ")}); got ${variant}`)
  const profileDir = path.join(resultsDir, "profiles")
  fs.mkdirSync(profileDir, { recursive: true })
  const server = await startGatehouse({
    ...serverOptions(variant),
    mode,
    portBase,
    nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=http-health-${variant}.cpuprofile`]
  })
  const url = `${server.origin}/api/v1/health`
  const headers = { authorization: `Bearer ${server.apiKey}` }
  await sleep(2_000)
  await runLoad(server.pid, { url, headers, connections, durationS: warmupS, overallRate })
  const fromMs = performance.now() - server.spawnedAt
  await runLoad(server.pid, { url, headers, connections, durationS, overallRate })
  const toMs = performance.now() - server.spawnedAt
  await server.stop() // the graceful exit writes the profile
  const file = path.join(profileDir, `http-health-${variant}.cpuprofile`)
  console.log(`\nCPU profile of the server (${label(variant)}) during the ${durationS} s load: ${file}`)
  profile = summarizeProfile(file, { fromMs, toMs, print: true })
}

writeResults("http-health", {
  benchmark: "GET /api/v1/health",
  routes,
  server: mode,
  settings: { rounds, durationS, warmupS, connections, overallRate, pipelining: 1, loadTool: "autocannon 8.0.0" },
  environment: { ...environment(), loadAverageAtStart: startEnvironment.loadAverage },
  ratios,
  summary,
  samples,
  profile
})
