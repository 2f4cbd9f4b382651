/**
 * Auth requests over gRPC, against the built server (`gatehouse serve` as a separate process):
 *
 * 1. Throughput: `CreateAuthRequest` + `AuthApprove` pairs per second (and the latency of a pair, p50/p99) from
 *    one grpc-js client at a fixed concurrency, next to the same client against a bare grpc-js server answering
 *    the same two RPCs with fixed messages (bench/baseline-grpc-server.mjs), in the same run, rounds interleaved
 *    (Gatehouse, bare, Gatehouse, ...). Target ≥ 0.5×. Each server's CPU time per pair (from /proc) is reported
 *    too: it moves much less than throughput when other work shares the machine.
 * 2. Waiters: 10,000 pending requests, each with a `WatchAuthRequest` stream open; the server's RSS with them
 *    (against the same server idle), then each request approved in turn and the time from sending the approval
 *    to the waiter receiving `approved` (p50/p99), next to the unary round trip on the baseline server.
 *    `--waiters=0` skips it.
 *
 * `--profile` runs the Gatehouse server under `node --cpu-prof` and summarises where its CPU went during the
 * measured rounds (bench/cpu-profile.ts); its numbers are then a profiled server's.
 *
 *   npx tsx bench/auth-requests.ts [--concurrency=32] [--duration=10] [--rounds=3] [--warmup=2] [--waiters=10000]
 *                                  [--profile]
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { AuthServiceClient } from "@gatehouse-edge/transport-grpc/client"
import { makeAuthServiceClient } from "@gatehouse-edge/transport-grpc/client"
import { summarizeProfile } from "./cpu-profile.js"
import {
  cpuMsOf,
  environment,
  fmt,
  freePort,
  median,
  memoryOf,
  mib,
  parseArgs,
  printTable,
  repoRoot,
  resultsDir,
  startGatehouse,
  stopProcess,
  waitForSteadyRss,
  writeResults
} from "./support.js"

const args = parseArgs({
  concurrency: "32",
  duration: "10",
  rounds: "3",
  warmup: "2",
  waiters: "10000",
  profile: "false",
  // `info` is the server's default, where every gRPC call writes its log line; `warn` measures the calls alone.
  "log-level": "warn"
})
const concurrency = Number(args.concurrency)
const durationMs = Number(args.duration) * 1000
const rounds = Number(args.rounds)
const warmupMs = Number(args.warmup) * 1000
const waiterCount = Number(args.waiters)

const unary = <Req, Res>(client: AuthServiceClient, method: string, request: Req) =>
  new Promise<Res>((resolve, reject) => {
    ;(client as unknown as Record<string, Function>)[method]!.call(
      client,
      request,
      (error: Error | null, response: Res) => (error === null ? resolve(response) : reject(error))
    )
  })

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const sshCheck = {
  kind: "AUTH_REQUEST_KIND_SSH_CHECK",
  sshCheck: { src: "127.0.0.1", dst: "bench", localUser: "root" }
}

/**
 * Create + approve pairs from `concurrency` loops for `ms`: pairs per second, each pair's latency, and the CPU
 * time the server process (`pid`) spent per pair.
 */
const pairs = async (client: AuthServiceClient, pid: number, ms: number) => {
  const latencies: Array<number> = []
  const until = performance.now() + ms
  const loop = async () => {
    while (performance.now() < until) {
      const t = performance.now()
      const created = await unary<object, { authRequest: { authId: string } }>(client, "CreateAuthRequest", sshCheck)
      await unary(client, "AuthApprove", { authId: created.authRequest.authId })
      latencies.push(performance.now() - t)
    }
  }
  const cpuBefore = cpuMsOf(pid)
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, loop))
  const elapsed = performance.now() - started
  const cpuMs = cpuMsOf(pid) - cpuBefore
  latencies.sort((a, b) => a - b)
  return {
    perSecond: (latencies.length * 1000) / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuUsPerPair: (cpuMs * 1000) / latencies.length,
    load: os.loadavg()[0]!
  }
}

type Round = Awaited<ReturnType<typeof pairs>>
const summary = (results: ReadonlyArray<Round>) => ({
  perSecond: median(results.map((r) => r.perSecond)),
  p50: median(results.map((r) => r.p50)),
  p99: median(results.map((r) => r.p99)),
  cpuUsPerPair: median(results.map((r) => r.cpuUsPerPair))
})

const startBaselineGrpc = async () => {
  const port = await freePort()
  const child = spawn(process.execPath, [`${repoRoot}/bench/baseline-grpc-server.mjs`, String(port)], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve())
    child.once("exit", (code) => reject(new Error(`baseline gRPC server exited with ${code}`)))
  })
  return { address: `127.0.0.1:${port}`, pid: child.pid!, stop: () => stopProcess(child) }
}

const profiling = args.profile === "true"
const profileDir = path.join(resultsDir, "profiles")
if (profiling) fs.mkdirSync(profileDir, { recursive: true })

const grpcPort = await freePort()
const gatehouse = await startGatehouse({
  routes: 0,
  health: false,
  mode: "dist",
  portBase: 0,
  nodeArgs: [
    ...(profiling ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--cpu-prof-name=auth-requests.cpuprofile"] : []),
    // A module the server loads first (e.g. one that times every SQLite statement), for investigations.
    ...(process.env.BENCH_NODE_IMPORT === undefined ? [] : ["--import", process.env.BENCH_NODE_IMPORT])
  ],
  // The waiters are one client's streams: past the default cap of 1,000 per client (4,000 in all) they are refused.
  configYaml:
    `grpc:\n  limits: { streams_per_client: ${Math.max(1000, waiterCount)}, ` +
    `streams: ${Math.max(4000, waiterCount)} }\n`,
  env: {
    GATEHOUSE_GRPC_ADDR: `127.0.0.1:${grpcPort}`,
    GATEHOUSE_AUTH_REQUESTS_MAX_PENDING: String(Math.max(1024, waiterCount * 2)),
    GATEHOUSE_AUTH_REQUESTS_TTL: "1h",
    // At the default `warn` the gRPC calls are measured, not logged (the bare server logs nothing either);
    // `--log-level=info` adds the line each call writes in production.
    GATEHOUSE_LOG_LEVEL: args["log-level"]!
  }
})
const baseline = await startBaselineGrpc()
try {
  const target = makeAuthServiceClient({ address: `127.0.0.1:${grpcPort}`, apiKey: gatehouse.apiKey, insecure: true })
  const bare = makeAuthServiceClient({ address: baseline.address, insecure: true })

  // 1. Throughput: a warm-up on each, then rounds alternating between the two servers, so drift in the machine's
  // load hits both alike.
  await pairs(target, gatehouse.pid, warmupMs)
  await pairs(bare, baseline.pid, warmupMs)
  const ghRounds: Array<Round> = []
  const baseRounds: Array<Round> = []
  const profileFrom = performance.now() - gatehouse.spawnedAt
  let profileMs = 0
  for (let i = 0; i < rounds; i++) {
    const from = performance.now()
    ghRounds.push(await pairs(target, gatehouse.pid, durationMs))
    profileMs += performance.now() - from
    baseRounds.push(await pairs(bare, baseline.pid, durationMs))
  }
  const gh = summary(ghRounds)
  const base = summary(baseRounds)
  const ratios = ghRounds.map((r, i) => r.perSecond / baseRounds[i]!.perSecond)
  console.log(
    `\nCreateAuthRequest + AuthApprove pairs, ${concurrency} concurrent, ${rounds} × ${durationMs / 1000} s ` +
      `interleaved (medians; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")})`
  )
  printTable(
    ["server", "pairs/s", "p50 ms", "p99 ms", "server CPU µs/pair", "ratio"],
    [
      ["bare grpc-js", fmt(base.perSecond), fmt(base.p50, 2), fmt(base.p99, 2), fmt(base.cpuUsPerPair), "1.00"],
      ["gatehouse", fmt(gh.perSecond), fmt(gh.p50, 2), fmt(gh.p99, 2), fmt(gh.cpuUsPerPair), fmt(median(ratios), 2)]
    ]
  )
  console.log(
    `per round: ${ghRounds
      .map(
        (r, i) =>
          `${fmt(r.perSecond)} / ${fmt(baseRounds[i]!.perSecond)} = ${fmt(ratios[i]!, 2)} (load ${r.load.toFixed(2)})`
      )
      .join("; ")}`
  )
  if (waiterCount === 0 || profiling) {
    writeResults("auth-requests", {
      environment: environment(),
      concurrency,
      throughput: { gatehouse: gh, baseline: base, ratio: median(ratios), rounds: { ghRounds, baseRounds } }
    })
    if (profiling) {
      for (const client of [target, bare]) client.close()
      await gatehouse.stop() // the graceful exit writes the profile
      const file = path.join(profileDir, "auth-requests.cpuprofile")
      // The rounds on the bare server fall in between: the window covers them, and they show as idle time.
      const window = { fromMs: profileFrom, toMs: profileFrom + profileMs * 2 + 5000 }
      console.log(
        `\nCPU profile of the server during the measured rounds (${fmt(profileMs / 1000, 1)} s; ` +
          `${Math.round(window.fromMs)}–${Math.round(window.toMs)} ms of the profile): ${file}`
      )
      summarizeProfile(file, { ...window, print: true })
    }
  } else await waiters(target, bare, gh, base, ratios, ghRounds, baseRounds)
} finally {
  await baseline.stop()
  await gatehouse.stop()
}

/** 2. The waiter phase. */
async function waiters(
  target: AuthServiceClient,
  bare: AuthServiceClient,
  gh: ReturnType<typeof summary>,
  base: ReturnType<typeof summary>,
  ratios: ReadonlyArray<number>,
  ghRounds: ReadonlyArray<Round>,
  baseRounds: ReadonlyArray<Round>
) {
  // 2. Waiters. Idle RSS first, settled, so the difference is what the waiters hold.
  await waitForSteadyRss(gatehouse.pid)
  const idle = memoryOf(gatehouse.pid)
  const ids: Array<string> = []
  for (let i = 0; i < waiterCount; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, waiterCount - i) }, () =>
        unary<object, { authRequest: { authId: string } }>(target, "CreateAuthRequest", sshCheck)
      )
    )
    ids.push(...batch.map((r) => r.authRequest.authId))
  }
  const approvedAt = new Map<string, number>()
  let pendingSeen = 0
  let allPending: () => void = () => {}
  const everyonePending = new Promise<void>((resolve) => {
    allPending = resolve
  })
  const waits = ids.map(
    (authId) =>
      new Promise<number>((resolve, reject) => {
        const stream = target.WatchAuthRequest({ authId })
        stream.on("data", (message: { state: string }) => {
          if (message.state === "AUTH_REQUEST_STATE_PENDING") {
            if (++pendingSeen === ids.length) allPending()
          } else if (message.state === "AUTH_REQUEST_STATE_APPROVED") {
            resolve(performance.now() - approvedAt.get(authId)!)
          }
        })
        stream.on("error", reject)
      })
  )
  await everyonePending
  await waitForSteadyRss(gatehouse.pid)
  const withWaiters = memoryOf(gatehouse.pid)
  // Approvals one at a time, so each latency is the server's path, not a queue behind the others.
  for (const authId of ids) {
    approvedAt.set(authId, performance.now())
    await unary(target, "AuthApprove", { authId })
  }
  const latencies = (await Promise.all(waits)).sort((a, b) => a - b)
  // The same client's plain unary round trip on the baseline, for scale.
  const roundTrips: Array<number> = []
  for (let i = 0; i < 2000; i++) {
    const t = performance.now()
    await unary(bare, "AuthApprove", { authId: ids[0] })
    roundTrips.push(performance.now() - t)
  }
  roundTrips.sort((a, b) => a - b)
  console.log(`\n${waiterCount} pending requests, a WatchAuthRequest stream open on each`)
  printTable(
    ["measure", "value", "against"],
    [
      ["server RSS idle", `${mib(idle.rssKiB)} MiB`, ""],
      [
        "server RSS with the waiters",
        `${mib(withWaiters.rssKiB)} MiB`,
        `+${fmt((withWaiters.rssKiB - idle.rssKiB) / waiterCount, 1)} KiB per waiter`
      ],
      [
        "approve → waiter p50",
        `${fmt(percentile(latencies, 50), 2)} ms`,
        `unary round trip p50 ${fmt(percentile(roundTrips, 50), 2)} ms (bare)`
      ],
      [
        "approve → waiter p99",
        `${fmt(percentile(latencies, 99), 2)} ms`,
        `unary round trip p99 ${fmt(percentile(roundTrips, 99), 2)} ms (bare)`
      ]
    ]
  )
  writeResults("auth-requests", {
    environment: environment(),
    concurrency,
    throughput: { gatehouse: gh, baseline: base, ratio: median(ratios), rounds: { ghRounds, baseRounds } },
    waiters: {
      count: waiterCount,
      idleRssKiB: idle.rssKiB,
      withWaitersRssKiB: withWaiters.rssKiB,
      approveToWaiterMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
      bareRoundTripMs: { p50: percentile(roundTrips, 50), p99: percentile(roundTrips, 99) }
    }
  })
  for (const client of [target, bare]) client.close()
}
