/**
 * The load generator, run in its own process by bench/support.ts so it does not share a core's event loop with
 * the benchmark driver: `node bench/load-worker.mjs '{"url":...,"connections":10,"durationS":10,"headers":{}}'`
 * (`"overallRate": <req/s>` for a fixed rate). Prints one JSON object (the fields of `LoadResult` but
 * `serverCpuPercent`) on stdout.
 */
import autocannon from "autocannon"

const options = JSON.parse(process.argv[2])
const cpuBefore = process.cpuUsage()
const started = performance.now()
const result = await autocannon({
  url: options.url,
  headers: options.headers ?? {},
  connections: options.connections,
  duration: options.durationS,
  pipelining: 1,
  timeout: 10,
  ...(options.overallRate ? { overallRate: options.overallRate } : {})
})
const cpu = process.cpuUsage(cpuBefore)
const elapsedMs = performance.now() - started
const completed = result.requests.total
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: completed / (elapsedMs / 1000),
    totalRequests: completed,
    bytesPerResponse: completed === 0 ? 0 : Math.round(result.throughput.total / completed),
    latencyMs: {
      mean: result.latency.mean,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    loaderCpuPercent: ((cpu.user + cpu.system) / 1000 / elapsedMs) * 100
  })
)
