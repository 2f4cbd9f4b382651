/**
 * What authenticating costs per request, and what a sign-in costs: the real server (built `dist/`, one fresh
 * process per round) answering three requests of the same weight — a tiny JSON body from a trivial handler — under
 * the same load (autocannon in its own process), interleaved in every round:
 *
 *   no auth          GET /api/v1/version (public)
 *   API key          GET /api/v1/whoami with `Authorization: Bearer <key>` (a verified key is cached for a minute)
 *   session cookie   GET /api/v1/whoami with the `gatehouse_session` cookie (signature check + a store lookup)
 *
 * and then sign-ins (`POST /api/v1/auth/login`, argon2id verification), each from its own loopback address so the
 * throttle never answers instead: the right password, a wrong password, an unknown user (which must cost the same).
 *
 *   npx tsx bench/sign-in.ts [--rounds=3] [--duration=8] [--warmup=2] [--connections=10] [--logins=10]
 *                            [--server=auto|dist|source]
 */
import * as http from "node:http"
import { hash } from "@node-rs/argon2"
import {
  checkClean,
  environment,
  fmt,
  type LoadResult,
  median,
  parseArgs,
  printTable,
  resolveServerMode,
  runLoad,
  startGatehouse,
  writeResults
} from "./support.js"

const args = parseArgs({ rounds: "3", duration: "8", warmup: "2", connections: "10", logins: "10", server: "auto" })
const rounds = Number(args.rounds)
const durationS = Number(args.duration)
const warmupS = Number(args.warmup)
const connections = Number(args.connections)
const logins = Number(args.logins)
const mode = resolveServerMode(args.server!)

const PASSWORD = "bench-password"
const passwordHash = await hash(PASSWORD, { algorithm: 2 })
// Several users with the same hash: each gets at most one wrong password per round (the per-user lock is 5).
const users = Array.from({ length: logins }, (_, i) => `user${i}`)
const configYaml = `auth:\n  users:\n${users.map((u) => `    - { name: ${u}, password_hash: "${passwordHash}" }`).join("\n")}\n`

// One POST from a given loopback address (127.0.0.0/8 is all loopback): the throttle counts per address.
const postLogin = (origin: string, username: string, password: string, localAddress: string) =>
  new Promise<{ readonly status: number; readonly ms: number; readonly cookies: ReadonlyArray<string> }>(
    (resolve, reject) => {
      const body = JSON.stringify({ username, password })
      const started = performance.now()
      const request = http.request(
        `${origin}/api/v1/auth/login`,
        {
          method: "POST",
          localAddress,
          headers: { "content-type": "application/json", "content-length": body.length }
        },
        (response) => {
          response.resume()
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              ms: performance.now() - started,
              cookies: response.headers["set-cookie"] ?? []
            })
          )
        }
      )
      request.on("error", reject)
      request.end(body)
    }
  )

const variants = ["no auth", "API key", "session cookie"] as const
const samples: Array<{ variant: string; round: number; load: LoadResult }> = []
const loginMs: Record<"right" | "wrong" | "unknown", Array<number>> = { right: [], wrong: [], unknown: [] }
let address = 10

for (let round = 1; round <= rounds; round++) {
  const server = await startGatehouse({
    routes: 0,
    health: false,
    mode,
    portBase: 0,
    configYaml,
    env: { GATEHOUSE_LOG_LEVEL: "warn" }
  })
  try {
    const signedIn = await postLogin(server.origin, users[0]!, PASSWORD, "127.0.0.2")
    if (signedIn.status !== 200) throw new Error(`sign-in failed: ${signedIn.status}`)
    const cookie = signedIn.cookies.map((c) => c.split(";")[0]).join("; ")
    const requestOf = {
      "no auth": { url: `${server.origin}/api/v1/version`, headers: {} },
      "API key": { url: `${server.origin}/api/v1/whoami`, headers: { authorization: `Bearer ${server.apiKey}` } },
      "session cookie": { url: `${server.origin}/api/v1/whoami`, headers: { cookie } }
    }
    for (const variant of variants) {
      const { url, headers } = requestOf[variant]
      await runLoad(server.pid, { url, headers, connections, durationS: warmupS })
      const load = await runLoad(server.pid, { url, headers, connections, durationS })
      checkClean(variant, load)
      samples.push({ variant, round, load })
      console.log(
        `round ${round} ${variant}: ${fmt(load.requestsPerSecond)} req/s, server CPU ${fmt(load.serverCpuPercent)}%`
      )
    }
    for (let i = 0; i < logins; i++) {
      const from = () => `127.0.${Math.floor(address / 250)}.${(address++ % 250) + 2}`
      const right = await postLogin(server.origin, users[i]!, PASSWORD, from())
      const wrong = await postLogin(server.origin, users[i]!, "not-the-password", from())
      const unknown = await postLogin(server.origin, `nobody${round}-${i}`, "not-the-password", from())
      if (right.status !== 200 || wrong.status !== 401 || unknown.status !== 401) {
        throw new Error(`unexpected sign-in statuses ${right.status} ${wrong.status} ${unknown.status}`)
      }
      loginMs.right.push(right.ms)
      loginMs.wrong.push(wrong.ms)
      loginMs.unknown.push(unknown.ms)
    }
  } finally {
    await server.stop()
  }
}

const usPerRequest = (load: LoadResult) => (load.serverCpuPercent / 100) * (1e6 / load.requestsPerSecond)
const of = (variant: string) => samples.filter((s) => s.variant === variant)
const summary = variants.map((variant) => {
  const own = of(variant)
  const ratios = own.map(
    (s) => s.load.requestsPerSecond / of("no auth").find((b) => b.round === s.round)!.load.requestsPerSecond
  )
  return {
    variant,
    requestsPerSecond: median(own.map((s) => s.load.requestsPerSecond)),
    p99Ms: median(own.map((s) => s.load.latencyMs.p99)),
    usPerRequest: median(own.map((s) => usPerRequest(s.load))),
    ratio: median(ratios),
    ratios
  }
})
const noAuthUs = summary[0]!.usPerRequest

console.log(`\nRequests of the same weight, ${rounds} rounds × ${durationS} s, ${connections} connections (medians)\n`)
printTable(
  ["credentials", "req/s", "p99 ms", "CPU µs/req", "auth adds µs", "× no auth", "per round"],
  summary.map((r) => [
    r.variant,
    fmt(r.requestsPerSecond),
    fmt(r.p99Ms, 1),
    fmt(r.usPerRequest),
    r.variant === "no auth" ? "-" : fmt(r.usPerRequest - noAuthUs),
    `${fmt(r.ratio, 2)}×`,
    r.ratios.map((x) => fmt(x, 2)).join(", ")
  ])
)
const loginSummary = (["right", "wrong", "unknown"] as const).map((kind) => ({
  kind,
  p50Ms: median(loginMs[kind]),
  maxMs: Math.max(...loginMs[kind])
}))
console.log(`\nPOST /api/v1/auth/login, ${loginMs.right.length} of each (argon2id, m=19 MiB, t=2)\n`)
printTable(
  ["password", "p50 ms", "max ms", "× right"],
  loginSummary.map((l) => [l.kind, fmt(l.p50Ms, 1), fmt(l.maxMs, 1), `${fmt(l.p50Ms / loginSummary[0]!.p50Ms, 2)}×`])
)
writeResults("sign-in", {
  benchmark: "sign-in",
  settings: { rounds, durationS, warmupS, connections, logins, mode },
  environment: environment(),
  summary,
  logins: loginSummary,
  samples
})
