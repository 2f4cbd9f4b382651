/**
 * Uptime metrics of 1,000 routes sampled every second, on a SQLite file, with the real code:
 *
 * 1. History: the store as a month of sampling leaves it. Every route has a deterministic status timeline (mostly
 *    healthy, 1% of 10-minute slots down, every tenth route idle — napping — from midnight to 8:00, a latency per
 *    slot); each period's buckets of the 30 days before T0 (the window and the bucket retention keeps) are written
 *    through `UptimeRepository.add`, oldest bucket first, holding exactly the counts that sampling that timeline
 *    once a second gives (a month of 1 Hz samples, 2.6 billion, is not replayed one by one: the counts are
 *    additive, so the rows are the same).
 * 2. Live: the real `UptimeLive` layer on that store under a `TestClock` from T0 for `--live` simulated seconds:
 *    a sample of all routes every second (a fresh health map each time, as `Health.snapshot` builds one), a flush
 *    every 5 s, retention sweeps. CPU time of the process (`process.cpuUsage`) per simulated second is what the
 *    sampler and the writes cost a real server per second: % of one core; and the bytes allocated on the V8 heap
 *    meanwhile (`AllocationSampler.ts`). Baseline, same run, measured the same way: the same rows (grouped per flush
 *    window as the recorder does) upserted by a plain better-sqlite3 prepared statement, one transaction per 5 s, on
 *    a copy of the same store, with the same retention deletes.
 * 3. Store size on disk after both (bytes, per route, per row; and after `VACUUM INTO`, what the rows need).
 * 4. `GET /api/v1/metrics/uptime?period=1mo` through the real server composition (in this process, its own
 *    sampler running, health checks disabled) on that store: latency p50/p99 of sequential requests, one page
 *    (100 routes, the default) and all 1,000 routes.
 *
 *   npx tsx --conditions=@gatehouse-edge/source bench/uptime.ts [--routes=1000] [--live=300] [--requests=100]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  bucketStartOf,
  bucketWidthMs,
  Health,
  loadConfig,
  type RouteRecord,
  Routes,
  StoreLive,
  Uptime,
  UptimeLive,
  type UptimeQuery,
  UptimeRepository,
  uptimePeriods
} from "@gatehouse-edge/core"
import { layerGatehouseServer } from "@gatehouse-edge/server"
import { Context, Effect, Layer, Logger, Stream } from "effect"
import { HttpServer } from "effect/http"
import { TestClock } from "effect/testing"
import { Database } from "../packages/core/src/store/SqliteDriver.js"
import { allocatedDuring } from "./AllocationSampler.js"
import { environment, fmt, parseArgs, printTable, routesYaml, writeResults } from "./support.js"
import { aliasOf, baseline, countsOver, healthAt } from "./UptimeWorkload.js"
import { closeAll, connect } from "./WebSocketClients.js"

const args = parseArgs({ routes: "1000", live: "300", requests: "100" })
const routeCount = Number(args.routes)
const liveSeconds = Number(args.live)
const requests = Number(args.requests)
const flushSeconds = 5

// ---------------------------------------------------------------------------------------------------------------
// 1. History, 2. live sampling (TestClock), baseline
// ---------------------------------------------------------------------------------------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gatehouse-bench-uptime-"))
const dataDir = path.join(dir, "data")
const filename = path.join(dataDir, "gatehouse.db")
// T0 so that the live phase ends shortly before the server answers the queries on the real clock: its windows
// then hold the history and the live samples.
const t0 = Math.floor((Date.now() - liveSeconds * 1000 - 30_000) / 1000) * 1000
const records: ReadonlyArray<RouteRecord> = Array.from({ length: routeCount }, (_, r) => ({
  route: { alias: aliasOf(r), scheme: "http", host: "127.0.0.1", port: { listening: 0, target: 9 }, healthcheck: null },
  provider: "file:routes.yml",
  excluded: false
}))
const store = StoreLive.layer({ filename })

const writeHistory = Effect.gen(function* () {
  const repository = yield* UptimeRepository
  const started = performance.now()
  let rows = 0
  for (const period of uptimePeriods) {
    const width = bucketWidthMs(period) / 1000
    const last = bucketStartOf(period, t0) / 1000
    // The window (100 buckets) and the one more bucket retention keeps, all complete up to T0.
    for (let b = 100; b >= 0; b--) {
      const from = last - b * width
      const to = Math.min(from + width, t0 / 1000)
      if (to <= from) continue
      const buckets = Array.from({ length: routeCount }, (_, r) => countsOver(r, period, from, to))
      yield* repository.add(buckets)
      rows += buckets.length
    }
  }
  return { rows, ms: performance.now() - started }
}).pipe(Effect.provide(UptimeRepository.layer.pipe(Layer.provide(store))))

const liveSampling = Effect.gen(function* () {
  yield* TestClock.setTime(t0)
  const written = { rows: 0, ms: 0 }
  const counting = Layer.effect(
    UptimeRepository,
    Effect.map(Layer.build(UptimeRepository.layer), (context) => {
      const real = Context.get(context, UptimeRepository)
      return UptimeRepository.of({
        ...real,
        add: (buckets) =>
          Effect.suspend(() => {
            const t = performance.now()
            return Effect.ensuring(
              real.add(buckets),
              Effect.sync(() => {
                written.rows += buckets.length
                written.ms += performance.now() - t
              })
            )
          })
      })
    })
  )
  const health = Layer.succeed(Health)(
    Health.of({
      snapshot: Effect.flatMap(
        Effect.clockWith((clock) => clock.currentTimeMillis),
        (now) => Effect.sync(() => healthAt(routeCount, Math.floor(now / 1000)))
      ),
      changes: Stream.never
    })
  )
  const world = UptimeLive.layer.pipe(
    Layer.provide(Layer.mergeAll(counting, Routes.layerTest(records), health)),
    Layer.provide(store)
  )
  return yield* Effect.scoped(
    Effect.gen(function* () {
      yield* Layer.build(world)
      const cpu = process.cpuUsage()
      const started = performance.now()
      const { allocatedBytes } = yield* allocatedDuring(
        Effect.gen(function* () {
          for (let s = 0; s < liveSeconds; s++) yield* TestClock.adjust("1 second")
        })
      )
      const used = process.cpuUsage(cpu)
      return {
        cpuMs: (used.user + used.system) / 1000,
        wallMs: performance.now() - started,
        allocatedBytes,
        ...written
      }
    })
  )
}).pipe(Effect.provide(TestClock.layer()))

// ---------------------------------------------------------------------------------------------------------------
// 3. Store size, 4. queries through the real server
// ---------------------------------------------------------------------------------------------------------------

const storeSize = (file: string) => {
  const db = new Database(file, { readonly: true })
  const pages = db.pragma("page_count", { simple: true }) as number
  const free = db.pragma("freelist_count", { simple: true }) as number
  const pageSize = db.pragma("page_size", { simple: true }) as number
  const rows = (db.prepare("SELECT count(*) AS n FROM uptime_buckets").get() as { n: number }).n
  const compact = path.join(dir, `compact-${path.basename(file)}`)
  db.exec(`VACUUM INTO '${compact}'`)
  db.close()
  const bytes = fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0)
  return { bytes, pages, freePages: free, pageSize, rows, vacuumedBytes: fs.statSync(compact).size }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

interface QueryRow {
  readonly query: string
  readonly cold?: number
  readonly p50: number
  readonly p99: number
  readonly bytes?: number
  readonly routes?: number
  readonly points?: number
}

const queries = Effect.gen(function* () {
  const routesDir = path.join(dir, "routes")
  fs.mkdirSync(routesDir, { recursive: true })
  fs.writeFileSync(path.join(routesDir, "routes.yml"), routesYaml(routeCount, false, 41_000))
  const flags = { http: "127.0.0.1:0", grpc: "127.0.0.1:0" }
  const loaded = loadConfig({ env: { GATEHOUSE_ROUTES_DIR: routesDir, GATEHOUSE_DATA_DIR: dataDir }, flags, cwd: dir })
  if (loaded._tag === "Invalid") return yield* Effect.die(new Error(JSON.stringify(loaded.issues)))
  const server = layerGatehouseServer({
    config: loaded.config,
    sources: { env: {}, flags, cwd: dir },
    version: { version: "bench", commit: "bench" }
  }).pipe(Layer.provide(Logger.layer([])))
  const context = yield* Layer.build(server)
  const origin = yield* HttpServer.addressFormattedWith((a) => Effect.succeed(a)).pipe(Effect.provideContext(context))
  const key = fs.readFileSync(path.join(dataDir, "admin.key"), "utf8").trim()
  const measure = (query: string, n: number) =>
    Effect.promise(async (): Promise<QueryRow> => {
      const url = `${origin.replace("0.0.0.0", "127.0.0.1")}/api/v1/metrics/uptime?${query}`
      const get = async () => {
        const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } })
        const body = await response.text()
        if (response.status !== 200) throw new Error(`${response.status} ${body}`)
        return body
      }
      // The first request reads the whole window from the store; later ones only the buckets that closed since.
      const t0 = performance.now()
      await get()
      const cold = performance.now() - t0
      for (let i = 0; i < Math.min(10, n); i++) await get()
      const times: Array<number> = []
      let body = ""
      for (let i = 0; i < n; i++) {
        const t = performance.now()
        body = await get()
        times.push(performance.now() - t)
      }
      times.sort((a, b) => a - b)
      const page = JSON.parse(body)
      return {
        query,
        cold,
        p50: percentile(times, 50),
        p99: percentile(times, 99),
        bytes: body.length,
        routes: page.data.length,
        points: page.data[0].statuses.length
      }
    })
  // The same pages without HTTP: what the service costs, apart from encoding and sending.
  const uptime = Context.get(context, Uptime)
  const inProcess = (query: UptimeQuery, n: number) =>
    Effect.gen(function* () {
      const times: Array<number> = []
      for (let i = 0; i < n + 5; i++) {
        const t = performance.now()
        yield* uptime.query(query)
        if (i >= 5) times.push(performance.now() - t)
      }
      times.sort((a, b) => a - b)
      const row: QueryRow = {
        query: `Uptime.query ${JSON.stringify(query)} (no HTTP)`,
        p50: percentile(times, 50),
        p99: percentile(times, 99)
      }
      return row
    })
  // A watcher of every route over the month: a frame per sample, each the whole page.
  const watch = (query: string, seconds: number) =>
    Effect.promise(async () => {
      const frames: Array<{ bytes: number; at: number }> = []
      const url = `${origin.replace("0.0.0.0", "127.0.0.1").replace(/^http/, "ws")}/api/v1/metrics/uptime?${query}`
      const socket = await connect(url, key, (text, at) => frames.push({ bytes: text.length, at }))
      const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)))
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
      const open = socket.readyState === socket.OPEN
      await closeAll([socket])
      return { query, frames: frames.length, bytes: frames.at(-1)?.bytes ?? 0, closedWith: open ? 0 : await closed }
    })
  const viaHttp = [
    yield* measure("period=1mo", requests),
    yield* measure("period=1mo&limit=1000", Math.max(10, Math.floor(requests / 4))),
    yield* measure("period=5m", requests)
  ]
  const watched = [yield* watch("period=1mo&limit=1000", 5), yield* watch("period=1mo", 5)]
  return {
    watched,
    rows: [
      ...viaHttp,
      yield* inProcess({ period: "1mo" }, requests),
      yield* inProcess({ period: "1mo", limit: 1000 }, Math.max(10, Math.floor(requests / 4)))
    ]
  }
}).pipe(Effect.scoped)

const main = Effect.gen(function* () {
  console.log(`uptime: ${routeCount} routes, history to T0 = ${new Date(t0).toISOString()}, ${liveSeconds} s live`)
  const history = yield* writeHistory
  console.log(`history: ${fmt(history.rows)} rows in ${fmt(history.ms / 1000, 1)} s`)
  const copy = path.join(dir, "baseline.db")
  fs.copyFileSync(filename, copy)
  let t = performance.now()
  const live = yield* liveSampling
  console.log(`live: ${fmt((performance.now() - t) / 1000, 1)} s`)
  t = performance.now()
  const { result: baseRun, allocatedBytes: baseAllocated } = yield* allocatedDuring(
    Effect.sync(() => baseline({ file: copy, routeCount, t0, liveSeconds, flushSeconds }))
  )
  const base = { ...baseRun, allocatedBytes: baseAllocated }
  console.log(`baseline: ${fmt((performance.now() - t) / 1000, 1)} s`)
  const size = storeSize(filename)
  const baseSize = storeSize(copy)
  t = performance.now()
  const http = yield* queries
  console.log(`queries: ${fmt((performance.now() - t) / 1000, 1)} s`)

  const pct = (cpuMs: number) => (cpuMs / liveSeconds / 1000) * 100
  const allocated = (bytes: number) => fmt(bytes / liveSeconds / 1024 / 1024, 2)
  console.log(`\nsampling ${routeCount} routes every second, ${liveSeconds} simulated seconds (CPU % of one core)`)
  printTable(
    ["", "CPU ms / s", "CPU %", "rows written / s", "ratio", "MiB allocated / s", "ratio"],
    [
      [
        "UptimeLive (sample + count + flush)",
        fmt(live.cpuMs / liveSeconds, 2),
        fmt(pct(live.cpuMs), 2),
        fmt(live.rows / liveSeconds),
        fmt(live.cpuMs / base.cpuMs, 2),
        allocated(live.allocatedBytes),
        fmt(live.allocatedBytes / base.allocatedBytes, 2)
      ],
      ["  of which UptimeRepository.add (wall)", fmt(live.ms / liveSeconds, 2), fmt(pct(live.ms), 2), "", "", "", ""],
      [
        "baseline: better-sqlite3 prepared upserts",
        fmt(base.cpuMs / liveSeconds, 2),
        fmt(pct(base.cpuMs), 2),
        fmt(base.rows / liveSeconds),
        "1.00",
        allocated(base.allocatedBytes),
        "1.00"
      ]
    ]
  )
  console.log("\nstore on disk after a month (history + live)")
  printTable(
    ["", "bytes", "per route", "rows", "bytes / row", "free pages", "after VACUUM"],
    [
      ["gatehouse.db", size, size.bytes],
      ["baseline copy", baseSize, baseSize.bytes]
    ].map(([name, s]) => {
      const v = s as ReturnType<typeof storeSize>
      return [
        name as string,
        fmt(v.bytes),
        fmt(v.bytes / routeCount),
        fmt(v.rows),
        fmt(v.bytes / v.rows, 1),
        `${fmt(v.freePages)} of ${fmt(v.pages)}`,
        fmt(v.vacuumedBytes)
      ]
    })
  )
  console.log("\nGET /api/v1/metrics/uptime through the real server (sequential requests)")
  printTable(
    ["query", "first ms", "p50 ms", "p99 ms", "bytes", "routes", "points / route"],
    http.rows.map((h) => [
      h.query,
      h.cold === undefined ? "" : fmt(h.cold, 1),
      fmt(h.p50, 1),
      fmt(h.p99, 1),
      h.bytes === undefined ? "" : fmt(h.bytes),
      h.routes === undefined ? "" : fmt(h.routes),
      h.points === undefined ? "" : fmt(h.points)
    ])
  )
  console.log("\nWebSocket watchers (5 s each)")
  printTable(
    ["query", "frames", "bytes / frame", "closed with"],
    http.watched.map((w) => [w.query, fmt(w.frames), fmt(w.bytes), w.closedWith === 0 ? "open" : String(w.closedWith)])
  )
  writeResults("uptime", { settings: args, environment: environment(), history, live, baseline: base, size, http })
  fs.rmSync(dir, { recursive: true, force: true })
})

Effect.runPromise(main).catch((error) => {
  console.error(error)
  fs.rmSync(dir, { recursive: true, force: true })
  process.exit(1)
})
