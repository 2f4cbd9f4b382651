/**
 * What an idle server costs: CPU (percent of one core) and wake-ups of its main thread per second, with 0 routes,
 * 1,000 routes with health checks off, 1,000 routes with the default checks (every 5 s) to closed 127.0.0.1 ports
 * (each refused), and the same to live targets (bench/live-targets.mjs, one process answering 200 on every port;
 * its own CPU is not counted), next to the bare `node:http` baseline of bench/http-health.ts, all in the same run.
 * Nothing is sent to the servers while they are measured.
 *
 *   npx tsx bench/idle.ts [--routes=1000] [--rounds=3] [--duration=20] [--server=auto|dist|source]
 *
 * Wake-ups are the main thread's voluntary context switches (/proc/<pid>/task/<pid>/status): each is one return of
 * the event loop from epoll. On a VM a wake-up of an idle process costs about what a health check to a closed port
 * costs (bench/README.md, "Idle wake-ups"), so timers that fire on their own are worth counting. Each measurement
 * starts 6 s after the server answers, when its monitors have all started. Rounds are interleaved; the table shows
 * medians.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  closedPortRange,
  cpuMsOf,
  distIsStale,
  environment,
  fmt,
  median,
  parseArgs,
  printTable,
  resolveServerMode,
  sleep,
  startBaseline,
  startGatehouse,
  startLiveTargets,
  writeResults
} from "./support.js"

const args = parseArgs({ routes: "1000", rounds: "3", duration: "20", server: "auto" })
const routes = Number(args.routes)
const rounds = Number(args.rounds)
const durationMs = Number(args.duration) * 1000
const mode = resolveServerMode(args.server!)
const portBase = closedPortRange(routes)
// Live targets listen below the kernel's ephemeral range (32768 and up by default on Linux), where the checks' own
// client sockets (thousands a minute, each in TIME_WAIT for a while) can hold a port the next round's targets need.
const livePortBase = closedPortRange(routes, 20_000)
const startEnvironment = environment()
// Monitors start at random points of their first second; the route watcher and the uptime sampler settle too.
const settleMs = 6_000

/** Voluntary context switches of a process's main thread: how often its event loop went to sleep. */
const wakeUpsOf = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/task/${pid}/status`, "utf8")
  return Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? Number.NaN)
}

interface Sample {
  readonly target: string
  readonly round: number
  readonly cpuPercent: number
  readonly wakeUpsPerSecond: number
}

const measure = async (target: string, round: number, pid: number): Promise<Sample> => {
  await sleep(settleMs)
  const cpuBefore = cpuMsOf(pid)
  const wakeUpsBefore = wakeUpsOf(pid)
  const start = performance.now()
  await sleep(durationMs)
  const elapsedMs = performance.now() - start
  return {
    target,
    round,
    cpuPercent: ((cpuMsOf(pid) - cpuBefore) / elapsedMs) * 100,
    wakeUpsPerSecond: ((wakeUpsOf(pid) - wakeUpsBefore) * 1000) / elapsedMs
  }
}

const variants = [
  { target: "gatehouse, 0 routes", routes: 0, health: false, live: false },
  { target: `gatehouse, ${routes} routes, health off`, routes, health: false, live: false },
  { target: `gatehouse, ${routes} routes, health on, refused`, routes, health: true, live: false },
  { target: `gatehouse, ${routes} routes, health on, live`, routes, health: true, live: true }
]
const baselineTarget = "bare node:http"

console.log(
  `Idle CPU and wake-ups, ${rounds} rounds of ${durationMs / 1000} s (after ${settleMs / 1000} s), server: ` +
    `${mode === "dist" ? "built dist/" : "sources through tsx"}`
)
if (mode === "dist" && distIsStale()) console.log("warning: some source file is newer than the build: npm run build")

const bodyDir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-body-"))
const bodyFile = path.join(bodyDir, "health.json")
fs.writeFileSync(bodyFile, "{}")
const samples: Array<Sample> = []
try {
  for (let round = 1; round <= rounds; round++) {
    for (const v of variants) {
      const base = v.live ? livePortBase : portBase
      const targets = v.live ? await startLiveTargets(base, v.routes) : undefined
      try {
        const server = await startGatehouse({ routes: v.routes, health: v.health, mode, portBase: base })
        try {
          samples.push(await measure(v.target, round, server.pid))
        } finally {
          await server.stop()
        }
      } finally {
        await targets?.stop()
      }
    }
    const baseline = await startBaseline(bodyFile)
    try {
      samples.push(await measure(baselineTarget, round, baseline.pid))
    } finally {
      await baseline.stop()
    }
    const these = samples.filter((s) => s.round === round)
    console.log(
      `round ${round}/${rounds}: ${these.map((s) => `${s.target} ${fmt(s.cpuPercent, 1)}%, ${fmt(s.wakeUpsPerSecond, 1)}/s`).join("; ")}`
    )
  }
} finally {
  fs.rmSync(bodyDir, { recursive: true, force: true })
}

const rows = [...variants.map((v) => v.target), baselineTarget].map((target) => {
  const mine = samples.filter((s) => s.target === target)
  return {
    target,
    cpuPercent: median(mine.map((s) => s.cpuPercent)),
    cpuPercentRounds: mine.map((s) => s.cpuPercent),
    wakeUpsPerSecond: median(mine.map((s) => s.wakeUpsPerSecond))
  }
})
console.log()
printTable(
  ["process", "idle CPU (% of a core)", "per round", "wake-ups/s"],
  rows.map((r) => [
    r.target,
    fmt(r.cpuPercent, 2),
    r.cpuPercentRounds.map((p) => fmt(p, 1)).join(", "),
    fmt(r.wakeUpsPerSecond, 1)
  ])
)
writeResults("idle", {
  benchmark: "idle server",
  environment: startEnvironment,
  routes,
  rounds,
  durationMs,
  rows,
  samples
})
