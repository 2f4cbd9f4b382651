/**
 * Live targets for the health checks of bench/idle.ts: `node bench/live-targets.mjs <first-port> <count>` listens
 * on 127.0.0.1:<first-port> to <first-port + count - 1> in one process and answers every request with an empty
 * 200, as a web app's health endpoint would. Prints "ready" once every port listens.
 */
import * as http from "node:http"

const [first, count] = process.argv.slice(2).map(Number)
const answer = (_request, response) => {
  response.writeHead(200, { "content-length": "0" })
  response.end()
}
const servers = []
const listening = []
for (let port = first; port < first + count; port++) {
  const server = http.createServer(answer)
  servers.push(server)
  listening.push(
    new Promise((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", resolve)
    })
  )
}
await Promise.all(listening)
process.stdout.write("ready\n")
process.on("SIGTERM", () => {
  for (const server of servers) server.close()
  process.exit(0)
})
