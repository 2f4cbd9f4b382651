/**
 * CPU time per `GET /api/v1/health` answer, Gatehouse against a bare `node:http` server sending the same bytes, with
 * the noise of a small shared machine kept out as far as it can be:
 *
 *   npx tsx bench/http-cpu.ts [--routes=1000] [--variants=off,on] [--chunks=40] [--requests=2500] [--connections=4]
 *                             [--server=auto|dist|source] [--compare=<another build's bin.js>]
 *
 * - Every server runs at once, pinned to CPU 1 (`taskset`, every thread); this process, the load, to CPU 0. A
 *   server is idle unless it is being measured (the `on` variant's monitors excepted: their CPU counts, as in
 *   production).
 * - The load is a keep-alive client in this process: `--connections` connections, each sending its next request
 *   when the previous answer is complete. It costs little and the same for every server.
 * - The measure is `--chunks` short runs of `--requests` requests per server, the servers in turn within a chunk
 *   (in alternating order): noise that moves over seconds (other tenants of the host, frequency) hits every server
 *   of a chunk alike, and each chunk gives a ratio of its own. CPU time is the sum of every thread's `schedstat`
 *   (nanoseconds), so a chunk of a few hundred milliseconds is measured exactly.
 * - Reported per variant: the median CPU µs per request of each server, and the median (and quartiles) of the
 *   chunks' ratios node:http / Gatehouse, the target's measure (≥ 0.6).
 * - `--compare` adds a third server per variant, another build of Gatehouse (e.g. one built from an older commit),
 *   measured in the same chunks: its CPU per request and the chunks' ratios of it to this build's.
 *
 * Unlike bench/http-health.ts no server is ever saturated and nothing waits on the load tool: the ratio does not
 * depend on how fast the load generator is. It does depend on the kernel's share (sending 78 KB over loopback and
 * waking the client costs both servers, and costs more when a slower server finds the client asleep).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import {
  closedPortRange,
  distIsStale,
  environment,
  fmt,
  median,
  parseArgs,
  printTable,
  resolveServerMode,
  startBaseline,
  startGatehouse,
  writeResults
} from "./support.js"

const args = parseArgs({
  routes: "1000",
  variants: "off,on",
  chunks: "40",
  requests: "2500",
  connections: "4",
  server: "auto",
  compare: ""
})
const routes = Number(args.routes)
const variants = args.variants!.split(",") as ReadonlyArray<"off" | "on">
const chunks = Number(args.chunks)
const perChunk = Number(args.requests)
const connections = Number(args.connections)
const mode = resolveServerMode(args.server!)
const compareBin = args.compare === "" ? undefined : path.resolve(args.compare!)
if (compareBin !== undefined && mode !== "dist") throw new Error("--compare runs built servers: use --server=dist")
if (mode === "dist" && distIsStale()) console.log("note: a source file is newer than dist/: run `npm run build` first")
if (os.availableParallelism() < 2) throw new Error("this benchmark pins the servers and the load to two CPUs")

/** Every thread of `pid` on `cpu` (threads it starts later inherit it). */
const pin = (pid: number, cpu: number) => {
  const { status } = spawnSync("taskset", ["-a", "-p", "-c", String(cpu), String(pid)], { stdio: "ignore" })
  if (status !== 0) throw new Error(`taskset could not pin ${pid} to CPU ${cpu} (Debian: util-linux)`)
}

/** CPU time of every thread of `pid`, in µs (from `schedstat`, which counts nanoseconds). */
const cpuMicros = (pid: number): number => {
  let ns = 0
  for (const thread of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8").split(" ")[0])
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return ns / 1000
}

/** Sends `count` requests over `connections` keep-alive connections; fails on anything but a 200. */
const load = (origin: string, headers: Record<string, string>, count: number): Promise<void> => {
  const url = new URL(origin)
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")
  const request = Buffer.from(`GET /api/v1/health HTTP/1.1\r\nhost: ${url.host}\r\n${extra}\r\n`)
  let sent = 0
  let done = 0
  return new Promise((resolve, reject) => {
    for (let c = 0; c < connections; c++) {
      const socket = net.connect(Number(url.port), url.hostname)
      let buffered: Buffer = Buffer.alloc(0)
      let needed = -1
      const next = () => {
        if (sent < count) {
          sent++
          socket.write(request)
        } else socket.end()
      }
      socket.on("connect", next)
      socket.on("error", reject)
      socket.on("data", (data: Buffer) => {
        buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data])
        for (;;) {
          if (needed < 0) {
            const end = buffered.indexOf("\r\n\r\n")
            if (end < 0) return
            const head = buffered.subarray(0, end).toString("latin1")
            if (!head.startsWith("HTTP/1.1 200")) return reject(new Error(`${origin}: ${head.split("\r\n")[0]}`))
            needed = end + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? Number.NaN)
          }
          if (buffered.length < needed) return
          buffered = buffered.subarray(needed)
          needed = -1
          if (++done === count) resolve()
          next()
        }
      })
    }
  })
}

interface Server {
  readonly pid: number
  readonly origin: string
  readonly headers: Record<string, string>
  readonly stop: () => Promise<void>
}

const portBase = closedPortRange(routes)
pin(process.pid, 0)
const servers: Array<{
  readonly variant: string
  readonly gatehouse: Server
  readonly baseline: Server
  readonly compared: Server | undefined
}> = []
const started: Array<{ readonly stop: () => Promise<void> }> = []
const bodyFiles: Array<string> = []
try {
  for (const variant of variants) {
    const process_ = await startGatehouse({ routes, health: variant === "on", mode, portBase })
    started.push(process_)
    const gatehouse: Server = {
      pid: process_.pid,
      origin: process_.origin,
      headers: { authorization: `Bearer ${process_.apiKey}` },
      stop: process_.stop
    }
    // The baseline answers with the bytes Gatehouse answered.
    const answer = await fetch(`${process_.origin}/api/v1/health`, { headers: gatehouse.headers })
    const bodyFile = path.join(os.tmpdir(), `gatehouse-bench-body-${process.pid}-${variant}.json`)
    fs.writeFileSync(bodyFile, Buffer.from(await answer.arrayBuffer()))
    bodyFiles.push(bodyFile)
    const bare = await startBaseline(bodyFile)
    started.push(bare)
    const baseline: Server = {
      pid: bare.pid,
      origin: bare.origin,
      headers: {},
      stop: bare.stop
    }
    let compared: Server | undefined
    if (compareBin !== undefined) {
      const other = await startGatehouse({ routes, health: variant === "on", mode, portBase, bin: compareBin })
      started.push(other)
      compared = {
        pid: other.pid,
        origin: other.origin,
        headers: { authorization: `Bearer ${other.apiKey}` },
        stop: other.stop
      }
    }
    for (const server of [gatehouse, baseline, ...(compared === undefined ? [] : [compared])]) {
      pin(server.pid, 1)
      await load(server.origin, server.headers, perChunk * 2) // warm-up: the JIT has seen the path
    }
    servers.push({ variant, gatehouse, baseline, compared })
  }

  const samples = new Map<string, Array<{ gatehouse: number; baseline: number; compared?: number }>>(
    variants.map((v) => [v, []])
  )
  const measureOne = async (server: Server) => {
    const before = cpuMicros(server.pid)
    await load(server.origin, server.headers, perChunk)
    return (cpuMicros(server.pid) - before) / perChunk
  }
  // The servers of a variant in turn, each chunk starting one further along (the first of a chunk can find caches
  // or the CPU's frequency otherwise than the last): every server is measured first, middle and last alike.
  for (let chunk = 0; chunk < chunks; chunk++) {
    for (const { variant, gatehouse, baseline, compared } of chunk % 2 === 0 ? servers : [...servers].reverse()) {
      const order = compared === undefined ? [gatehouse, baseline] : [gatehouse, baseline, compared]
      const measured = new Map<Server, number>()
      for (let i = 0; i < order.length; i++) {
        const server = order[(chunk + i) % order.length]!
        measured.set(server, await measureOne(server))
      }
      const sample = { gatehouse: measured.get(gatehouse)!, baseline: measured.get(baseline)! }
      samples.get(variant)!.push(compared === undefined ? sample : { ...sample, compared: measured.get(compared)! })
    }
  }

  const quartile = (values: ReadonlyArray<number>, q: number) =>
    [...values].sort((x, y) => x - y)[Math.floor(q * (values.length - 1))]!
  const rows: Array<Array<string>> = []
  const comparedRows: Array<Array<string>> = []
  const summary = variants.map((variant) => {
    const list = samples.get(variant)!
    const ratios = list.map((s) => s.baseline / s.gatehouse)
    const row = {
      variant,
      gatehouseMicrosPerRequest: median(list.map((s) => s.gatehouse)),
      baselineMicrosPerRequest: median(list.map((s) => s.baseline)),
      ratio: median(ratios),
      ratioQuartiles: [quartile(ratios, 0.25), quartile(ratios, 0.75)] as const
    }
    rows.push([
      `health ${variant}`,
      fmt(row.gatehouseMicrosPerRequest, 1),
      fmt(row.baselineMicrosPerRequest, 1),
      `${fmt(row.ratio, 2)}×`,
      `${fmt(row.ratioQuartiles[0], 2)}–${fmt(row.ratioQuartiles[1], 2)}`
    ])
    if (compareBin === undefined) return row
    const comparedRatios = list.map((s) => s.compared! / s.gatehouse)
    const compared = {
      comparedMicrosPerRequest: median(list.map((s) => s.compared!)),
      comparedRatio: median(comparedRatios),
      comparedRatioQuartiles: [quartile(comparedRatios, 0.25), quartile(comparedRatios, 0.75)] as const
    }
    comparedRows.push([
      `health ${variant}`,
      fmt(compared.comparedMicrosPerRequest, 1),
      fmt(row.gatehouseMicrosPerRequest, 1),
      `${fmt(compared.comparedRatio, 2)}×`,
      `${fmt(compared.comparedRatioQuartiles[0], 2)}–${fmt(compared.comparedRatioQuartiles[1], 2)}`
    ])
    return { ...row, ...compared }
  })
  console.log(
    `\nGET /api/v1/health, ${routes} routes; ${chunks} chunks of ${perChunk} requests per server, ${connections} ` +
      `keep-alive connections; servers pinned to CPU 1, the load to CPU 0; server: ${mode}\n`
  )
  printTable(["variant", "gatehouse CPU µs/req", "node:http CPU µs/req", "node:http / gatehouse", "quartiles"], rows)
  if (compareBin !== undefined) {
    console.log(`\nthis build against ${compareBin}, same chunks:\n`)
    printTable(
      ["variant", "compared CPU µs/req", "this build CPU µs/req", "compared / this build", "quartiles"],
      comparedRows
    )
  }
  writeResults("http-cpu", {
    benchmark: "GET /api/v1/health, CPU per request, pinned and interleaved",
    routes,
    server: mode,
    compared: compareBin ?? null,
    settings: { chunks, requestsPerChunk: perChunk, connections },
    environment: environment(),
    summary,
    samples: Object.fromEntries(samples)
  })
} finally {
  await Promise.all(started.map((server) => server.stop()))
  for (const file of bodyFiles) fs.rmSync(file, { force: true })
}
