/**
 * Talks to a running Gatehouse server with the promise client of `@gatehouse-edge/client`: the server version, the
 * route table, a route validation (and its typed error), then a few frames of the live health stream.
 *
 *   npx tsx --conditions=@gatehouse-edge/source examples/client-usage.ts [--url URL] [--key KEY] [--frames N] [--seconds S]
 *
 * The URL comes from `--url`, else `GATEHOUSE_URL`, else `http://127.0.0.1:8888`; the API key from `--key`, else
 * `GATEHOUSE_API_KEY`, else the file `./data/admin.key` that `gatehouse serve` writes on first start.
 */
import * as fs from "node:fs"
import { parseArgs } from "node:util"
import { createGatehouseClient, formatIssue, Unauthenticated, ValidationFailed } from "@gatehouse-edge/client"

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    key: { type: "string" },
    frames: { type: "string", default: "3" },
    seconds: { type: "string", default: "5" }
  }
})

// An empty variable counts as unset.
const baseUrl = values.url ?? (process.env.GATEHOUSE_URL || "http://127.0.0.1:8888")
const apiKey = values.key ?? (process.env.GATEHOUSE_API_KEY || readKeyFile("./data/admin.key"))

function readKeyFile(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").trim()
  } catch {
    console.error(`no API key: pass --key, set GATEHOUSE_API_KEY or run where ${file} exists`)
    process.exit(2)
  }
}

const client = createGatehouseClient({ baseUrl, apiKey })
try {
  const version = await client.system.version()
  console.log(`server: Gatehouse ${version.version} (${version.commit}) at ${baseUrl}`)

  const routes = await client.routes.list()
  console.log(`routes: ${routes.length}`)
  for (const route of routes) {
    console.log(`  ${route.alias}  ${route.scheme}://${route.host}:${route.port.target}  ${route.health.status}`)
  }

  // A valid route comes back normalized (defaults filled in)...
  const checked = await client.routes.validate("example:\n  host: 127.0.0.1\n  port: 3000\n")
  const example = checked.routes[0]!
  console.log(
    `validate: ${example.alias} is valid (scheme ${example.scheme}, healthcheck ${example.healthcheck?.path})`
  )
  // ...an invalid one rejects with a typed error carrying every problem.
  try {
    await client.routes.validate("broken:\n  port: 99999\n")
  } catch (error) {
    if (!(error instanceof ValidationFailed)) throw error
    for (const issue of error.issues) console.log(`validate: ${formatIssue(issue)}`)
  }

  // The health map now, then again whenever a status changes; stop after N frames or S seconds.
  const frames = Number(values.frames)
  const health = client.health.watch()[Symbol.asyncIterator]()
  const stop = setTimeout(() => void health.return?.(), Number(values.seconds) * 1000)
  for (let i = 0; i < frames; i++) {
    const next = await health.next()
    if (next.done === true) break
    const statuses = Object.entries(next.value).map(([alias, info]) => `${alias}=${info.status}`)
    console.log(`health: ${statuses.length === 0 ? "(no routes)" : statuses.join(" ")}`)
  }
  clearTimeout(stop)
  await health.return?.()
} catch (error) {
  if (error instanceof Unauthenticated) console.error(`the server refused the API key: ${error.message}`)
  else console.error(error)
  process.exitCode = 1
} finally {
  await client.close()
}
