import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))

/** The built `gatehouse` command (it bundles the other packages' `dist/`, see packages/server/tsup.config.ts). */
export const builtBin = path.join(repoRoot, "packages/server/dist/bin.js")

/** Whether every package's `dist/` was built after the last change to what it is built from. */
export type BuildState = "current" | "stale" | "missing"

/** What a package's build reads: a change to any of them leaves its `dist/` behind. */
const buildInputs = ["src", "proto", "package.json", "tsup.config.ts"]

/** The newest change at or under `entry`, directories included: deleting a file changes its directory. */
const newestChange = (entry: string): number => {
  if (!fs.existsSync(entry)) return 0
  const stat = fs.statSync(entry)
  if (!stat.isDirectory()) return stat.mtimeMs
  return fs
    .readdirSync(entry, { recursive: true, withFileTypes: true })
    .reduce((newest, e) => Math.max(newest, fs.statSync(path.join(e.parentPath, e.name)).mtimeMs), stat.mtimeMs)
}

/** The oldest file directly in `dist/`: every build rewrites all of them (`clean`, or the server's `rmSync`). */
const oldestOutput = (dist: string): number | undefined => {
  const times = fs
    .readdirSync(dist, { withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => fs.statSync(path.join(dist, e.name)).mtimeMs)
  return times.length === 0 ? undefined : Math.min(...times)
}

/** The newest file directly in `dist/`. */
const newestOutput = (dist: string): number =>
  Math.max(
    0,
    ...fs
      .readdirSync(dist, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => fs.statSync(path.join(dist, e.name)).mtimeMs)
  )

/**
 * The state of the build of every package under `<root>/packages`. The server's program bundles the others' builds,
 * so one of them rebuilt after it leaves the server's behind too.
 */
export const buildState = (root: string = repoRoot): BuildState => {
  const packagesDir = path.join(root, "packages")
  let state: BuildState = "current"
  const packages = fs
    .readdirSync(packagesDir)
    .filter((name) => fs.existsSync(path.join(packagesDir, name, "package.json")))
  for (const name of packages) {
    const dist = path.join(packagesDir, name, "dist")
    const built = fs.existsSync(dist) ? oldestOutput(dist) : undefined
    if (built === undefined) return "missing"
    const changed = Math.max(...buildInputs.map((input) => newestChange(path.join(packagesDir, name, input))))
    if (changed > built) state = "stale"
  }
  const serverBuilt = oldestOutput(path.join(packagesDir, "server", "dist"))
  if (serverBuilt !== undefined) {
    const others = packages.filter((name) => name !== "server")
    if (others.some((name) => newestOutput(path.join(packagesDir, name, "dist")) > serverBuilt)) state = "stale"
  }
  return state
}
