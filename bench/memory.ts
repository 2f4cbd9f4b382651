/**
 * Resident memory (VmRSS from /proc/<pid>/status) of the Gatehouse server with 0 and 1,000 routes, idle after
 * start-up has settled and again after a load test, next to a bare `node` process running the `node:http`
 * baseline of bench/http-health.ts, all measured in the same run.
 *
 *   npx tsx bench/memory.ts [--routes=1000] [--duration=10] [--connections=10] [--settle=25-45]
 *                           [--server=auto|dist|source] [--bin=<another build's bin.js>]
 *
 * Rows: gatehouse with 0 routes; with 1,000 routes and health checks disabled; with 1,000 routes and the default
 * health checks (1,000 monitors, as in production); the baseline serving the 1,000-route health map's bytes.
 * "Settled" means three 1 s RSS samples within 2%, at least 25 s and at most 45 s after start (or after the load;
 * `--settle=<min>-<max>` in seconds), before the first reading and again after the load: V8's memory reducer gives
 * back the heap that start-up (or the load) grew only some seconds after allocation stops (measured on Node 20:
 * ~126 MiB at 6 s, ~93 MiB at 20 s with 0 routes), so an earlier reading shows start-up garbage rather than what an
 * idle server holds. On Node 24 the young generation that start-up grew (64 MiB) stays until V8's watchdog
 * collection ~100 s later, and RSS is flat until then: `--settle=120-150` reads it after that collection. The load is
 * `GET /api/v1/health`, autocannon in its own process. V8 keeps most of the heap it grew under load, so "after
 * load" depends on when it last collected: the peak (VmHWM) is steadier. `--bin` runs another build's `bin.js`
 * (a copy of packages/server/dist inside packages/server, so that its imports resolve), e.g. one made before a
 * change.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  checkClean,
  closedPortRange,
  distIsStale,
  environment,
  fmt,
  memoryOf,
  mib,
  parseArgs,
  printTable,
  resolveServerMode,
  runLoad,
  startBaseline,
  startGatehouse,
  waitForSteadyRss,
  writeResults
} from "./support.js"

const args = parseArgs({ routes: "1000", duration: "10", connections: "10", settle: "25-45", server: "auto", bin: "" })
const routes = Number(args.routes)
const durationS = Number(args.duration)
const connections = Number(args.connections)
const mode = args.bin === "" ? resolveServerMode(args.server!) : "dist"
const bin = args.bin === "" ? undefined : path.resolve(args.bin!)
const portBase = closedPortRange(routes)
const startEnvironment = environment()

interface Row {
  readonly target: string
  readonly startupMs?: number
  readonly settleMs: number
  readonly settled: boolean
  readonly settleAfterLoadMs: number
  readonly rssIdleKiB: number
  readonly rssAfterLoadKiB: number
  readonly peakRssKiB: number
  readonly requestsPerSecond: number
}

const rows: Array<Row> = []

// See the header: V8's memory reducer runs some seconds after allocation stops.
const settleBounds = /^(\d+)-(\d+)$/.exec(args.settle!)
if (settleBounds === null || Number(settleBounds[1]) > Number(settleBounds[2]))
  throw new Error(`--settle takes <min>-<max> in seconds, e.g. 25-45; got ${args.settle}`)
const settleMinMs = Number(settleBounds[1]) * 1000
const settleMaxMs = Number(settleBounds[2]) * 1000

/** Settle, read, load, settle again, read again. */
const measure = async (pid: number, url: string, headers: Record<string, string>) => {
  const settle = await waitForSteadyRss(pid, settleMinMs, settleMaxMs)
  const rssIdleKiB = memoryOf(pid).rssKiB
  const load = await runLoad(pid, { url, headers, connections, durationS })
  checkClean(url, load)
  const settleAfter = await waitForSteadyRss(pid, settleMinMs, settleMaxMs)
  const { rssKiB, peakKiB } = memoryOf(pid)
  return {
    settleMs: settle.ms,
    settled: settle.steady,
    settleAfterLoadMs: settleAfter.ms,
    rssIdleKiB,
    rssAfterLoadKiB: rssKiB,
    peakRssKiB: peakKiB,
    requestsPerSecond: load.requestsPerSecond
  }
}

const bodyDir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-body-"))
const bodyFile = path.join(bodyDir, "health.json")
console.log(
  `RSS of the server (${mode === "dist" ? "built dist/" : "sources through tsx"}), ${routes} routes, ` +
    `load ${durationS} s × ${connections} connections`
)
if (mode === "dist" && distIsStale()) console.log("warning: some source file is newer than the build: npm run build")

try {
  const variants = [
    { target: "gatehouse, 0 routes", routes: 0, health: false },
    { target: `gatehouse, ${routes} routes, health off`, routes, health: false },
    { target: `gatehouse, ${routes} routes, health on`, routes, health: true }
  ]
  for (const v of variants) {
    process.stdout.write(`${v.target}: `)
    const server = await startGatehouse({ routes: v.routes, health: v.health, mode, portBase, ...(bin ? { bin } : {}) })
    try {
      const url = `${server.origin}/api/v1/health`
      const headers = { authorization: `Bearer ${server.apiKey}` }
      const row = { target: v.target, startupMs: server.startupMs, ...(await measure(server.pid, url, headers)) }
      if (v.health) {
        const response = await fetch(url, { headers })
        fs.writeFileSync(bodyFile, Buffer.from(await response.arrayBuffer()))
      }
      rows.push(row)
      console.log(`${mib(row.rssIdleKiB)} MiB idle, ${mib(row.rssAfterLoadKiB)} MiB after load`)
    } finally {
      await server.stop()
    }
  }
  process.stdout.write("node:http baseline: ")
  const baseline = await startBaseline(bodyFile)
  try {
    const row = {
      target: `bare node:http (${routes}-route health bytes)`,
      ...(await measure(baseline.pid, baseline.origin, {}))
    }
    rows.push(row)
    console.log(`${mib(row.rssIdleKiB)} MiB idle, ${mib(row.rssAfterLoadKiB)} MiB after load`)
  } finally {
    await baseline.stop()
  }
} finally {
  fs.rmSync(bodyDir, { recursive: true, force: true })
}

const base = rows.at(-1)!
console.log()
printTable(
  ["process", "RSS idle", "after load", "peak", "idle vs node", "settled after", "load req/s"],
  rows.map((r) => [
    r.target,
    `${mib(r.rssIdleKiB)} MiB`,
    `${mib(r.rssAfterLoadKiB)} MiB`,
    `${mib(r.peakRssKiB)} MiB`,
    r === base ? "1.00×" : `${fmt(r.rssIdleKiB / base.rssIdleKiB, 2)}×`,
    `${fmt(r.settleMs / 1000, 0)} s${r.settled ? "" : " (cap)"}`,
    fmt(r.requestsPerSecond)
  ])
)

writeResults("memory", {
  benchmark: "server RSS",
  routes,
  server: bin ?? mode,
  settings: {
    durationS,
    connections,
    loadTool: "autocannon 8.0.0",
    settle: `3 × 1 s samples within 2%, ${args.settle} s`
  },
  environment: { ...environment(), loadAverageAtStart: startEnvironment.loadAverage },
  rows
})
