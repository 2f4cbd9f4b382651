/**
 * Clients that post documents continuously, run in its own process by bench/validation-latency.ts: `clients`
 * closed loops, each posting the next of `files` (round robin) as soon as its previous answer arrived, for
 * `durationS`. Prints one JSON object: posts completed, answers by status, every latency in ms.
 *
 *   node bench/post-load.mjs '{"url":...,"headers":{},"clients":4,"durationS":10,"files":["/tmp/a.yml"]}'
 */
import * as fs from "node:fs"
import * as http from "node:http"

const options = JSON.parse(process.argv[2])
const bodies = options.files.map((file) => fs.readFileSync(file))
const agent = new http.Agent({ keepAlive: true, maxSockets: options.clients })
const byStatus = {}
const latencies = []
let errors = 0
let next = 0

const post = (body) =>
  new Promise((resolve) => {
    const started = performance.now()
    const request = http.request(
      options.url,
      {
        method: "POST",
        agent,
        headers: { ...options.headers, "content-type": "application/yaml", "content-length": body.length }
      },
      (response) => {
        response.resume()
        response.on("end", () => {
          latencies.push(performance.now() - started)
          byStatus[response.statusCode] = (byStatus[response.statusCode] ?? 0) + 1
          resolve()
        })
      }
    )
    request.on("error", () => {
      errors++
      resolve()
    })
    request.end(body)
  })

const deadline = performance.now() + options.durationS * 1000
const client = async () => {
  while (performance.now() < deadline) await post(bodies[next++ % bodies.length])
}
const started = performance.now()
await Promise.all(Array.from({ length: options.clients }, client))
const elapsedS = (performance.now() - started) / 1000
agent.destroy()
process.stdout.write(JSON.stringify({ posts: latencies.length, errors, byStatus, latencies, elapsedS }))
