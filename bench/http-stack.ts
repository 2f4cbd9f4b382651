/**
 * Where the fixed per-request cost of the HTTP stack goes: the same `GET /api/v1/version` answer (36 bytes of JSON)
 * from servers that add one layer of Gatehouse's stack at a time, each against the same load (autocannon in its own
 * process), interleaved over rounds, every measurement a fresh process.
 *
 *   npx tsx bench/http-stack.ts [--rounds=3] [--duration=8] [--warmup=2] [--connections=10]
 *
 * Rows, each adding to the one above:
 *   node:http            bare `node:http` with the same bytes (the baseline)
 *   effect router        effect's Node HTTP server + HttpRouter, one route (bench/stack-server.ts)
 *   HttpApi              an HttpApi endpoint with its success schema encoded per request, no middleware
 *   + ApiResponses       that API behind Gatehouse's outermost middleware (request id, limits, error bodies)
 *   gatehouse, no log    the real server (built dist/) at `log.level: warn`: request id, limits and error-body
 *                        middleware, request validation, the whole API's router
 *   gatehouse            the same at the default `info`: one JSON access-log line per request
 *   gatehouse /health    `GET /api/v1/health` with 0 routes: API-key authentication and the health handler
 * CPU µs/request = the server's CPU time during the run / requests answered; "adds" is the difference to the row
 * above. The server is CPU-bound in every row but the baseline (whose loader is the limit), so µs/request is the
 * steadier measure; req/s ratios are to the baseline of the same round.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  checkClean,
  environment,
  fmt,
  freePort,
  type LoadResult,
  median,
  parseArgs,
  printTable,
  repoRoot,
  runLoad,
  startBaseline,
  startGatehouse,
  stopProcess,
  writeResults
} from "./support.js"

const args = parseArgs({ rounds: "3", duration: "8", warmup: "2", connections: "10" })
const rounds = Number(args.rounds)
const durationS = Number(args.duration)
const warmupS = Number(args.warmup)
const connections = Number(args.connections)

interface Running {
  readonly pid: number
  readonly url: string
  readonly headers: Record<string, string>
  readonly stop: () => Promise<void>
}

const stackServer = async (variant: string): Promise<Running> => {
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), path.join(repoRoot, "bench/stack-server.ts"), variant, String(port)],
    { stdio: ["ignore", "pipe", "inherit"] }
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve())
    child.once("exit", (code) => reject(new Error(`stack-server ${variant} exited with ${code}`)))
  })
  return {
    pid: child.pid!,
    url: `http://127.0.0.1:${port}/api/v1/version`,
    headers: {},
    stop: () => stopProcess(child)
  }
}

const gatehouse = async (logLevel: "info" | "warn", endpoint: "version" | "health"): Promise<Running> => {
  const server = await startGatehouse({
    routes: 0,
    health: false,
    mode: "dist",
    portBase: 0,
    env: { GATEHOUSE_LOG_LEVEL: logLevel }
  })
  return {
    pid: server.pid,
    url: `${server.origin}/api/v1/${endpoint}`,
    headers: endpoint === "health" ? { authorization: `Bearer ${server.apiKey}` } : {},
    stop: server.stop
  }
}

// The baseline answers the real server's bytes for /version.
const versionBody = async (): Promise<string> => {
  const server = await gatehouse("warn", "version")
  const body = await (await fetch(server.url)).text()
  await server.stop()
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-stack-")), "version.json")
  fs.writeFileSync(file, body)
  return file
}

const bodyFile = await versionBody()
const rows: ReadonlyArray<{ readonly label: string; readonly start: () => Promise<Running> }> = [
  {
    label: "node:http",
    start: async () => {
      const b = await startBaseline(bodyFile)
      return { pid: b.pid, url: `${b.origin}/api/v1/version`, headers: {}, stop: b.stop }
    }
  },
  { label: "effect router", start: () => stackServer("effect-router") },
  { label: "HttpApi", start: () => stackServer("http-api") },
  { label: "+ ApiResponses", start: () => stackServer("http-api-responses") },
  { label: "gatehouse, no log", start: () => gatehouse("warn", "version") },
  { label: "gatehouse", start: () => gatehouse("info", "version") },
  { label: "gatehouse /health", start: () => gatehouse("info", "health") }
]

const samples: Array<{ label: string; round: number; load: LoadResult }> = []
for (let round = 1; round <= rounds; round++) {
  for (const row of rows) {
    const server = await row.start()
    try {
      await runLoad(server.pid, { url: server.url, headers: server.headers, connections, durationS: warmupS })
      const load = await runLoad(server.pid, { url: server.url, headers: server.headers, connections, durationS })
      checkClean(row.label, load)
      samples.push({ label: row.label, round, load })
      console.log(
        `round ${round} ${row.label}: ${fmt(load.requestsPerSecond)} req/s, server CPU ${fmt(load.serverCpuPercent)}%`
      )
    } finally {
      await server.stop()
    }
  }
}

const usPerRequest = (load: LoadResult) => (load.serverCpuPercent / 100) * (1e6 / load.requestsPerSecond)
const of = (label: string) => samples.filter((s) => s.label === label)
const summary = rows.map((row, i) => {
  const own = of(row.label)
  const ratios = own.map(
    (s) => s.load.requestsPerSecond / of("node:http").find((b) => b.round === s.round)!.load.requestsPerSecond
  )
  const us = median(own.map((s) => usPerRequest(s.load)))
  const above = i === 0 ? undefined : median(of(rows[i - 1]!.label).map((s) => usPerRequest(s.load)))
  return {
    label: row.label,
    requestsPerSecond: median(own.map((s) => s.load.requestsPerSecond)),
    serverCpuPercent: median(own.map((s) => s.load.serverCpuPercent)),
    usPerRequest: us,
    addsUs: above === undefined ? undefined : us - above,
    ratio: median(ratios),
    ratios
  }
})

console.log(`\nGET /api/v1/version, ${rounds} rounds × ${durationS} s, ${connections} connections (medians)\n`)
printTable(
  ["server", "req/s", "server CPU", "CPU µs/req", "adds µs/req", "× node:http req/s", "per round"],
  summary.map((r) => [
    r.label,
    fmt(r.requestsPerSecond),
    `${fmt(r.serverCpuPercent)}%`,
    fmt(r.usPerRequest),
    r.addsUs === undefined ? "-" : fmt(r.addsUs),
    `${fmt(r.ratio, 2)}×`,
    r.ratios.map((x) => fmt(x, 2)).join(", ")
  ])
)
writeResults("http-stack", {
  benchmark: "http-stack",
  settings: { rounds, durationS, warmupS, connections },
  environment: environment(),
  summary,
  samples
})
