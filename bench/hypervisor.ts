/**
 * The Proxmox VE integration under many watchers, against the server as a separate process (`gatehouse serve`
 * with a cluster pointing at the PVE simulator in this process, and node pve1's SSH at a real OpenSSH sshd with the
 * `journalctl` shim):
 *
 * 1. Stats fan-out: N WebSocket clients on `/hypervisor/stats/pve1/101` (N = 0, 10, 1000). Upstream requests per
 *    second to the simulator by kind (target: the cache's one `/cluster/resources` per 3 s whatever N is), the
 *    delay of a tick's frame to the last client after the first one got it (p50/p99), the server's CPU and RSS —
 *    as ratios against N = 0 measured in the same run.
 * 2. Journals: 50 WebSocket journal streams on node pve1, all the same journal (shared: one remote command) and
 *    50 different units (one channel each). SSH connections opened and commands run (counted by sshd), the RSS
 *    against the same server before the streams, and the time from a line written to the journal file to the last
 *    of the 50 clients receiving it (p50/p99).
 *
 *   npx tsx bench/hypervisor.ts [--clients=1000] [--duration=15] [--streams=50] [--lines=20] [--server=auto|dist|source]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { clusterYaml } from "../test/pve-sim/ClusterYaml.js"
import { startPveSimulator } from "../test/pve-sim/PveSimulator.js"
import { type Sshd, startSshd } from "../test/support/Sshd.js"
import {
  cpuPercentOver,
  distIsStale,
  environment,
  fmt,
  memoryOf,
  mib,
  parseArgs,
  printTable,
  resolveServerMode,
  sleep,
  startGatehouse,
  writeResults
} from "./support.js"
import { closeAll, connect, percentile } from "./WebSocketClients.js"

const args = parseArgs({ clients: "1000", duration: "15", streams: "50", lines: "20", server: "auto" })
const clientCounts = [0, 10, Number(args.clients)]
const durationMs = Number(args.duration) * 1000
const streams = Number(args.streams)
const lineCount = Number(args.lines)
const mode = resolveServerMode(args.server!)

/** Frames of one tick arrive together; a gap over 300 ms starts the next tick. Delay = arrival - tick's first. */
const fanOutDelays = (arrivals: ReadonlyArray<number>) => {
  const sorted = [...arrivals].sort((a, b) => a - b)
  const delays: Array<number> = []
  let start = sorted[0] ?? 0
  let previous = start
  let ticks = sorted.length === 0 ? 0 : 1
  for (const at of sorted) {
    if (at - previous > 300) {
      start = at
      ticks++
    }
    delays.push(at - start)
    previous = at
  }
  return { delays, ticks }
}

interface BenchSshd {
  readonly dir: string
  readonly journalDir: string
  readonly server: Sshd
}

const main = async (sshd: BenchSshd) => {
  if (mode === "dist" && distIsStale())
    console.log("warning: packages/*/dist is older than the sources (npm run build)")
  const sim = await startPveSimulator({ taskDurationMs: 100 })
  const keyFile = path.join(sshd.dir, "id_ed25519")
  fs.writeFileSync(keyFile, sshd.server.clientKeyPem, { mode: 0o600 })
  const configYaml = clusterYaml(sim, {
    ssh: { node: "pve1", port: sshd.server.port, hostKey: sshd.server.hostKeyLine, privateKeyFile: keyFile }
  })
  const server = await startGatehouse({ routes: 0, health: false, mode, portBase: 0, configYaml })
  const ws = server.origin.replace(/^http/, "ws")
  const results: Record<string, unknown> = { environment: environment(), mode }
  try {
    // ---- 1. stats fan-out
    await sleep(4000) // the first refresh and the addresses are in; the poller is in its rhythm
    const statsRows: Array<Array<string>> = []
    const statsResults: Array<Record<string, number>> = []
    let idle = { cpu: 0, rssKiB: 0 }
    for (const n of clientCounts) {
      const arrivals: Array<number> = []
      let measuring = false
      const sockets = await Promise.all(
        Array.from({ length: n }, () =>
          connect(`${ws}/api/v1/hypervisor/stats/pve1/101`, server.apiKey, (_text, at) => {
            if (measuring) arrivals.push(at)
          })
        )
      )
      await sleep(2000) // every client has its first frame and follows the shared ticks
      sim.resetRequests()
      measuring = true
      const started = performance.now()
      const cpu = await cpuPercentOver(server.pid, durationMs)
      const seconds = (performance.now() - started) / 1000
      measuring = false
      const rssKiB = memoryOf(server.pid).rssKiB
      const count = (re: RegExp) => sim.requests.filter((r) => re.test(r.path)).length / seconds
      const upstream = {
        resources: count(/\/cluster\/resources$/),
        interfaces: count(/\/interfaces$/),
        other: count(/^(?!.*(\/cluster\/resources|\/interfaces)$)/)
      }
      const { delays, ticks } = fanOutDelays(arrivals)
      if (n === 0) idle = { cpu, rssKiB }
      const row = {
        clients: n,
        resourcesPerS: upstream.resources,
        interfacesPerS: upstream.interfaces,
        otherPerS: upstream.other,
        framesPerClientPerS: n === 0 ? 0 : arrivals.length / n / seconds,
        ticksPerS: n === 0 ? 0 : ticks / seconds,
        fanOutP50Ms: percentile(delays, 50),
        fanOutP99Ms: percentile(delays, 99),
        cpuPct: cpu,
        rssKiB
      }
      statsResults.push(row)
      statsRows.push([
        String(n),
        fmt(row.resourcesPerS, 3),
        fmt(row.interfacesPerS, 3),
        fmt(row.otherPerS, 3),
        n === 0 ? "-" : fmt(row.framesPerClientPerS, 2),
        n === 0 ? "-" : fmt(row.fanOutP50Ms, 1),
        n === 0 ? "-" : fmt(row.fanOutP99Ms, 1),
        `${fmt(cpu, 1)}%`,
        n === 0 ? "1.00×" : `${fmt(idle.cpu > 0 ? cpu / idle.cpu : Number.NaN, 2)}×`,
        mib(rssKiB),
        `${fmt(rssKiB / idle.rssKiB, 2)}×`
      ])
      await closeAll(sockets)
      await sleep(500)
    }
    console.log(`\n1. stats fan-out on /hypervisor/stats/pve1/101, ${durationMs / 1000} s per row (${mode} server)\n`)
    printTable(
      [
        "clients",
        "resources/s",
        "interfaces/s",
        "other/s",
        "frames/client/s",
        "fan-out p50 ms",
        "p99 ms",
        "server CPU",
        "vs idle",
        "RSS MiB",
        "vs idle"
      ],
      statsRows
    )
    results.stats = statsResults

    // ---- 2. journals
    const journalRows: Array<Array<string>> = []
    const journalResults: Array<Record<string, number | string>> = []
    for (const variant of ["same journal", "distinct units"] as const) {
      for (let i = 0; i < streams; i++) fs.writeFileSync(path.join(sshd.journalDir, `u${i}.log`), "ready\n")
      fs.writeFileSync(path.join(sshd.journalDir, "node.log"), "ready\n")
      const accepted = () => (sshd.server.log().match(/Accepted publickey/g) ?? []).length
      const connectionsBefore = accepted()
      const commandsBefore = sshd.server.execLog().length
      const rssBefore = memoryOf(server.pid).rssKiB
      const received = new Map<string, Array<number>>()
      const sockets = await Promise.all(
        Array.from({ length: streams }, (_, i) =>
          connect(
            `${ws}/api/v1/hypervisor/journalctl/pve1?limit=1${variant === "same journal" ? "" : `&service=u${i}`}`,
            server.apiKey,
            (text, at) => {
              const list = received.get(text) ?? []
              list.push(at)
              received.set(text, list)
            }
          )
        )
      )
      const deadline = Date.now() + 30_000
      while ((received.get("ready")?.length ?? 0) < streams && Date.now() < deadline) await sleep(20)
      const latencies: Array<number> = []
      for (let k = 0; k < lineCount; k++) {
        const line = `line ${variant} ${k}`
        const written = performance.now()
        if (variant === "same journal") fs.appendFileSync(path.join(sshd.journalDir, "node.log"), `${line}\n`)
        else for (let i = 0; i < streams; i++) fs.appendFileSync(path.join(sshd.journalDir, `u${i}.log`), `${line}\n`)
        const until = Date.now() + 10_000
        while ((received.get(line)?.length ?? 0) < streams && Date.now() < until) await sleep(2)
        const arrivals = received.get(line) ?? []
        if (arrivals.length === streams) latencies.push(Math.max(...arrivals) - written)
        await sleep(50)
      }
      const rssWith = memoryOf(server.pid).rssKiB
      const row = {
        variant,
        streams,
        connectionsOpened: accepted() - connectionsBefore,
        commands: sshd.server.execLog().length - commandsBefore,
        rssBeforeKiB: rssBefore,
        rssWithKiB: rssWith,
        deliveredLines: latencies.length,
        lastClientP50Ms: percentile(latencies, 50),
        lastClientP99Ms: percentile(latencies, 99)
      }
      journalResults.push(row)
      journalRows.push([
        variant,
        String(streams),
        String(row.connectionsOpened),
        String(row.commands),
        `${latencies.length}/${lineCount}`,
        fmt(row.lastClientP50Ms, 1),
        fmt(row.lastClientP99Ms, 1),
        mib(rssBefore),
        mib(rssWith),
        `${fmt(rssWith / rssBefore, 2)}×`
      ])
      await closeAll(sockets)
      await sleep(1000)
    }
    console.log(`\n2. ${streams} journal streams on node pve1 over a real sshd\n`)
    printTable(
      [
        "variant",
        "streams",
        "SSH connections",
        "remote commands",
        "lines",
        "to last client p50 ms",
        "p99 ms",
        "RSS before MiB",
        "with MiB",
        "ratio"
      ],
      journalRows
    )
    results.journals = journalResults
    writeResults("hypervisor", results)
  } finally {
    await server.stop()
    await sim.close()
  }
}

const sshdFor = (dir: string) =>
  Effect.gen(function* () {
    const journalDir = path.join(dir, "journal")
    fs.mkdirSync(journalDir, { recursive: true })
    const server = yield* startSshd(path.join(dir, "sshd"), {
      env: { GATEHOUSE_JOURNAL_DIR: journalDir, GATEHOUSE_NODE: "pve1" },
      maxSessions: 100
    })
    return { dir, journalDir, server }
  })

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-pve-"))
Effect.runPromise(Effect.scoped(Effect.flatMap(sshdFor(dir), (sshd) => Effect.promise(() => main(sshd))))).finally(() =>
  fs.rmSync(dir, { recursive: true, force: true })
)
