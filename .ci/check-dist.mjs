// After `npm run build`: loads every export entry of every workspace package from its built dist/ (Node's default
// conditions, as an installed package is loaded), checks that the entries which re-export the contract hand out
// the contract's own classes, and runs the built CLI. The tests run from src/, so this is what proves the
// bundles: tsup once emitted `@gatehouse-edge/core/domain` as an empty module, which no test saw.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Worker } from "node:worker_threads"

const repoRoot = path.resolve(import.meta.dirname, "..")
const root = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"))
const failures = []
const loaded = new Map()

for (const dir of root.workspaces) {
  const json = JSON.parse(fs.readFileSync(path.join(repoRoot, dir, "package.json"), "utf8"))
  for (const entry of Object.keys(json.exports ?? {})) {
    const specifier = entry === "." ? json.name : `${json.name}/${entry.replace(/^\.\//, "")}`
    // Entries that are no module to import: the manifest (read by path), and a worker thread's entry, which runs
    // only as a thread (the built CLI below starts it). They must resolve to a file that exists.
    if (entry === "./package.json" || entry === "./validation-worker") {
      try {
        const file = new URL(import.meta.resolve(specifier))
        if (!fs.existsSync(file)) failures.push(`${specifier}: ${file.pathname} does not exist`)
      } catch (error) {
        failures.push(`${specifier}: ${error instanceof Error ? error.message : String(error)}`)
      }
      continue
    }
    try {
      const module = await import(specifier)
      if (Object.keys(module).length === 0) failures.push(`${specifier}: exports nothing`)
      loaded.set(specifier, module)
    } catch (error) {
      failures.push(`${specifier}: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

const same = (name, specifiers) => {
  const [first, ...rest] = specifiers.map((s) => loaded.get(s)?.[name])
  if (first === undefined) failures.push(`${specifiers[0]} has no ${name}`)
  for (const [i, other] of rest.entries())
    if (other !== first) failures.push(`${name} from ${specifiers[i + 1]} is not the one from ${specifiers[0]}`)
}
same("RouteNotFound", [
  "@gatehouse-edge/contract/domain",
  "@gatehouse-edge/core/domain",
  "@gatehouse-edge/core",
  "@gatehouse-edge/client"
])
same("CurrentPrincipal", ["@gatehouse-edge/contract/domain", "@gatehouse-edge/core/services"])
same("validateRouteSources", ["@gatehouse-edge/core/routes", "@gatehouse-edge/core"])
same("GatehouseApi", ["@gatehouse-edge/contract/api", "@gatehouse-edge/transport-http/api"])

// The validation worker threads, core's and the one the bundled CLI starts from its own dist/: each validates a job.
const validatedBy = (file) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(file)
    worker.once("message", (reply) => {
      void worker.terminate()
      resolve(reply)
    })
    worker.once("error", reject)
    worker.postMessage({ kind: "sources", sources: [{ file: "a.yml", text: "app:\n  port: 8080\n" }] })
  })
for (const file of [
  new URL(import.meta.resolve("@gatehouse-edge/core/validation-worker")),
  path.join(repoRoot, "packages/server/dist/ValidationWorker.js")
]) {
  try {
    const reply = await validatedBy(file)
    if (reply?.ok !== true || reply.value?.files?.[0]?.report?.routes?.length !== 1)
      failures.push(`${file}: validated a one-route file as ${JSON.stringify(reply).slice(0, 200)}`)
  } catch (error) {
    failures.push(`${file}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

let version = ""
try {
  version = execFileSync(process.execPath, [path.join(repoRoot, "packages/server/dist/bin.js"), "--version"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  }).trim()
  if (!/^gatehouse v\d/.test(version)) failures.push(`gatehouse --version printed ${JSON.stringify(version)}`)
} catch (error) {
  const stderr = String(error.stderr ?? error.message)
    .trim()
    .split("\n")
    .slice(0, 4)
    .join(" | ")
  failures.push(`gatehouse --version (packages/server/dist/bin.js) failed: ${stderr}`)
}

if (failures.length > 0) {
  console.error(`the built packages are broken:\n${failures.map((f) => `  ${f}`).join("\n")}`)
  process.exit(1)
}
console.log(`built packages: ${loaded.size} entries load, re-exported classes are the contract's, ${version}`)
