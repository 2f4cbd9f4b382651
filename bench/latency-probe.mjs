/**
 * An open-loop latency probe, run in its own process by bench/validation-latency.ts: sends GET `url` at a fixed
 * rate for `durationS` whether or not earlier requests have been answered (a stalled server is measured as the
 * time each request waits, not hidden by a client that stops sending), and prints one JSON object: the number of
 * requests, errors and non-2xx answers, and every latency in ms.
 *
 *   node bench/latency-probe.mjs '{"url":...,"headers":{},"rate":100,"durationS":10}'
 */
import * as http from "node:http"

const options = JSON.parse(process.argv[2])
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 })
const latencies = []
let errors = 0
let non2xx = 0
let outstanding = 0

const once = () =>
  new Promise((resolve) => {
    const started = performance.now()
    outstanding++
    const request = http.get(options.url, { agent, headers: options.headers ?? {} }, (response) => {
      response.resume()
      response.on("end", () => {
        latencies.push(performance.now() - started)
        if (response.statusCode < 200 || response.statusCode >= 300) non2xx++
        outstanding--
        resolve()
      })
    })
    request.on("error", () => {
      errors++
      outstanding--
      resolve()
    })
  })

const pending = []
const interval = 1000 / options.rate
const start = performance.now()
for (let i = 0; performance.now() - start < options.durationS * 1000; i++) {
  pending.push(once())
  // The schedule is fixed in advance: a late tick sends at once, so a stall does not thin out the requests.
  const next = start + (i + 1) * interval
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())))
}
await Promise.all(pending)
agent.destroy()
process.stdout.write(JSON.stringify({ requests: latencies.length + errors, errors, non2xx, latencies, outstanding }))
