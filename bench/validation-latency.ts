/**
 * Does route validation hold the event loop? The latency of `GET /api/v1/version` with no load (the baseline) and
 * while 4 clients continuously post 1 MiB worst-case documents to `POST /api/v1/route/validate`: deep nesting
 * (`[[[[…`, `{b: {b: …`, `- - - …`, indentation, mixed — refused up front) and a valid route file of ~8,000
 * routes (~1 MiB, about a second and a half of CPU each, validated on a worker thread).
 *
 *   npx tsx bench/validation-latency.ts [--rounds=2] [--duration=10] [--warmup=3] [--clients=4] [--rate=100]
 *                                       [--server=auto|dist|source]
 *
 * The server runs as deployed (`node packages/server/dist/bin.js serve`, see bench/support.ts), one fresh process
 * per round; the probe (bench/latency-probe.mjs, open loop at `rate` requests/s) and the posting clients
 * (bench/post-load.mjs) run in their own processes. Ratios are against the no-load baseline of the same round.
 */

import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { deepDocuments, MiB } from "../test/support/DeepYaml.js"
import { generateRouteFile } from "../test/support/GeneratedRoutes.js"
import {
  cpuMsOf,
  distIsStale,
  environment,
  fmt,
  type GatehouseProcess,
  median,
  memoryOf,
  mib,
  parseArgs,
  printTable,
  repoRoot,
  resolveServerMode,
  sleep,
  startGatehouse,
  writeResults
} from "./support.js"

const args = parseArgs({ rounds: "2", duration: "10", warmup: "3", clients: "4", rate: "100", server: "auto" })
const rounds = Number(args.rounds)
const durationS = Number(args.duration)
const warmupS = Number(args.warmup)
const clients = Number(args.clients)
const rate = Number(args.rate)
const mode = resolveServerMode(args.server!)
const startEnvironment = environment()

// ---- Documents: written once to files the posting process reads ----------------------------------------------
const docDir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-docs-"))
const deepFiles = deepDocuments(MiB).map((document, i) => {
  const file = path.join(docDir, `deep-${i}.yml`)
  fs.writeFileSync(file, document.text)
  return file
})
// The largest generated file under the 1 MiB body limit.
let routeCount = 8500
let routeFile = generateRouteFile(routeCount)
while (Buffer.byteLength(routeFile) > MiB) routeFile = generateRouteFile((routeCount -= 100))
const validFile = path.join(docDir, "routes.yml")
fs.writeFileSync(validFile, routeFile)

type Phase = "no load (baseline)" | "deep nesting, 1 MiB" | `valid route file, ${string}`
const validPhase: Phase = `valid route file, ${fmt(routeCount)} routes`
const phases: ReadonlyArray<{ readonly phase: Phase; readonly files: ReadonlyArray<string> }> = [
  { phase: "no load (baseline)", files: [] },
  { phase: "deep nesting, 1 MiB", files: deepFiles },
  { phase: validPhase, files: [validFile] }
]

// ---- Child processes -------------------------------------------------------------------------------------------
const runChild = <A>(script: string, options: unknown): Promise<A> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "bench", script), JSON.stringify(options)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()))
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as A) : reject(new Error(`${script} exited with ${code}`))
    )
  })

interface ProbeResult {
  readonly requests: number
  readonly errors: number
  readonly non2xx: number
  readonly latencies: ReadonlyArray<number>
}
interface PostResult {
  readonly posts: number
  readonly errors: number
  readonly byStatus: Record<string, number>
  readonly latencies: ReadonlyArray<number>
  readonly elapsedS: number
}

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

interface Sample {
  readonly round: number
  readonly phase: Phase
  readonly version: {
    readonly requests: number
    readonly failed: number
    readonly p50: number
    readonly p99: number
    readonly max: number
  }
  readonly posts: { readonly perSecond: number; readonly p50: number; readonly byStatus: Record<string, number> }
  readonly serverAlive: boolean
  readonly serverCpuPercent: number
  readonly rssAfterKiB: number
}
const samples: Array<Sample> = []

const measure = async (server: GatehouseProcess, files: ReadonlyArray<string>, seconds: number) => {
  const headers = { authorization: `Bearer ${server.apiKey}` }
  const load =
    files.length === 0
      ? Promise.resolve<PostResult>({ posts: 0, errors: 0, byStatus: {}, latencies: [], elapsedS: seconds })
      : runChild<PostResult>("post-load.mjs", {
          url: `${server.origin}/api/v1/route/validate`,
          headers,
          clients,
          durationS: seconds,
          files
        })
  const cpuBefore = cpuMsOf(server.pid)
  const started = performance.now()
  const probe = await runChild<ProbeResult>("latency-probe.mjs", {
    url: `${server.origin}/api/v1/version`,
    headers,
    rate,
    durationS: seconds
  })
  const posted = await load
  const alive = server.child.exitCode === null && server.child.signalCode === null
  const serverCpuPercent = alive ? ((cpuMsOf(server.pid) - cpuBefore) / (performance.now() - started)) * 100 : 0
  // Failures are results here (a server that stalls or dies under this load is what the benchmark looks for):
  // they are counted and shown, not thrown.
  return { probe, posted, serverCpuPercent, alive }
}

console.log(
  `GET /api/v1/version (open loop, ${rate}/s) while ${clients} clients post 1 MiB documents to ` +
    `POST /api/v1/route/validate; ${rounds} rounds × ${durationS} s per phase (+${warmupS} s warm-up); ` +
    `server: ${mode === "dist" ? "built dist/" : "sources through tsx"}; node ${process.version}, ${os.cpus().length} CPUs`
)
if (startEnvironment.loadAverage[0]! > 0.5)
  console.log(`note: load average ${startEnvironment.loadAverage.join(" ")}: other processes compete for the CPUs`)
if (mode === "dist" && distIsStale()) console.log("warning: some source file is newer than the build: npm run build")

try {
  for (let round = 1; round <= rounds; round++) {
    const server = await startGatehouse({ routes: 0, health: false, mode, portBase: 0 })
    try {
      await sleep(1_000)
      for (const { phase, files } of phases) {
        process.stdout.write(`round ${round}/${rounds}: ${phase}: `)
        if (warmupS > 0) await measure(server, files, warmupS)
        const { probe, posted, serverCpuPercent, alive } = await measure(server, files, durationS)
        const sample: Sample = {
          round,
          phase,
          serverAlive: alive,
          version: {
            requests: probe.requests,
            failed: probe.errors + probe.non2xx,
            p50: percentile(probe.latencies, 50),
            p99: percentile(probe.latencies, 99),
            max: Math.max(...probe.latencies)
          },
          posts: {
            perSecond: posted.posts / posted.elapsedS,
            p50: percentile(posted.latencies, 50),
            byStatus: posted.errors > 0 ? { ...posted.byStatus, error: posted.errors } : posted.byStatus
          },
          serverCpuPercent,
          rssAfterKiB: alive ? memoryOf(server.pid).rssKiB : 0
        }
        samples.push(sample)
        console.log(
          `/version p50 ${fmt(sample.version.p50, 1)} ms, p99 ${fmt(sample.version.p99, 1)} ms` +
            `${sample.version.failed > 0 ? ` (${sample.version.failed} failed)` : ""}; ` +
            `${fmt(sample.posts.perSecond, 2)} posts/s ${JSON.stringify(sample.posts.byStatus)}`
        )
        if (!alive) {
          console.log(`round ${round}: the server exited (code ${server.child.exitCode}, ${server.child.signalCode})`)
          break
        }
      }
    } finally {
      await server.stop()
    }
  }
} finally {
  fs.rmSync(docDir, { recursive: true, force: true })
}

// ---- Summary: medians over rounds; ratios to the baseline of the same round -----------------------------------
const summary = phases.flatMap(({ phase }) => {
  const of = samples.filter((s) => s.phase === phase)
  return of.length === 0 ? [] : [summarize(phase, of)]
})

function summarize(phase: Phase, of: ReadonlyArray<Sample>) {
  const ratio = (key: "p50" | "p99") =>
    median(
      of.map((s) => {
        const base = samples.find((b) => b.round === s.round && b.phase === "no load (baseline)")!
        return s.version[key] / base.version[key]
      })
    )
  return {
    phase,
    versionP50Ms: median(of.map((s) => s.version.p50)),
    versionP99Ms: median(of.map((s) => s.version.p99)),
    versionMaxMs: median(of.map((s) => s.version.max)),
    versionFailed: of.map((s) => s.version.failed),
    serverAlive: of.every((s) => s.serverAlive),
    p50Ratio: ratio("p50"),
    p99Ratio: ratio("p99"),
    postsPerSecond: median(of.map((s) => s.posts.perSecond)),
    postP50Ms: median(of.map((s) => s.posts.p50)),
    byStatus: of.map((s) => s.posts.byStatus),
    serverCpuPercent: median(of.map((s) => s.serverCpuPercent)),
    rssAfterKiB: median(of.map((s) => s.rssAfterKiB))
  }
}

console.log()
printTable(
  [
    "phase",
    "/version p50",
    "p99",
    "max",
    "p50 ×base",
    "p99 ×base",
    "posts/s",
    "post p50",
    "answers",
    "server CPU",
    "RSS"
  ],
  summary.map((s) => [
    s.phase,
    `${fmt(s.versionP50Ms, 1)} ms`,
    `${fmt(s.versionP99Ms, 1)} ms`,
    `${fmt(s.versionMaxMs, 0)} ms`,
    `${fmt(s.p50Ratio, 2)}×`,
    `${fmt(s.p99Ratio, 2)}×`,
    s.phase.startsWith("no load") ? "-" : fmt(s.postsPerSecond, 2),
    s.phase.startsWith("no load") ? "-" : `${fmt(s.postP50Ms, 0)} ms`,
    s.phase.startsWith("no load")
      ? "-"
      : `${Object.entries(s.byStatus[0] ?? {})
          .map(([status, n]) => `${status}×${n}`)
          .join(" ")}${s.serverAlive ? "" : ", server died"}`,
    `${fmt(s.serverCpuPercent)}%`,
    `${mib(s.rssAfterKiB)} MiB`
  ])
)
const loaded = summary.filter((s) => !s.phase.startsWith("no load"))
console.log(
  `\n/version p99 under load: ${loaded.map((s) => `${fmt(s.versionP99Ms, 1)} ms (${s.phase})`).join(", ")}; ` +
    "target: within a few tens of ms"
)

writeResults("validation-latency", {
  benchmark: "GET /api/v1/version while clients post 1 MiB documents to POST /api/v1/route/validate",
  server: mode,
  settings: { rounds, durationS, warmupS, clients, probeRatePerSecond: rate, routeCount },
  environment: { ...environment(), loadAverageAtStart: startEnvironment.loadAverage },
  summary,
  samples
})
