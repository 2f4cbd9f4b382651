/**
 * The baseline of bench/http-health.ts and bench/memory.ts: a bare `node:http` server that answers every request
 * with the same JSON bytes the Gatehouse server returned for `GET /api/v1/health` (read from a file once).
 * `node bench/baseline-server.mjs <port> <body-file>`; prints "ready" once listening on 127.0.0.1:<port>.
 */
import * as fs from "node:fs"
import * as http from "node:http"

const [port, bodyFile] = process.argv.slice(2)
const body = fs.readFileSync(bodyFile)
const headers = { "content-type": "application/json", "content-length": String(body.length) }

const server = http.createServer((_request, response) => {
  response.writeHead(200, headers)
  response.end(body)
})
server.listen(Number(port), "127.0.0.1", () => process.stdout.write("ready\n"))
process.on("SIGTERM", () => server.close(() => process.exit(0)))
