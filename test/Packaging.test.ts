import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "vitest"

// What a user gets from `npm install @gatehouse-edge/<package>`, checked on the package.json files and on what
// `npm pack` would put in each tarball (without building: `prepack` builds, and tests never write dist/).

const repoRoot = path.resolve(import.meta.dirname, "..")
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))

interface PackageJson {
  readonly name: string
  readonly version: string
  readonly description?: string
  readonly license?: string
  readonly engines?: { readonly node?: string }
  readonly exports?: Record<string, string | Record<string, string>>
  readonly files?: ReadonlyArray<string>
  readonly scripts?: Record<string, string>
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
}

/** An entry of package-lock.json's `packages`. */
interface LockEntry {
  readonly dependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
  readonly peerDependenciesMeta?: Record<string, { readonly optional?: boolean }>
  readonly hasInstallScript?: boolean
}

const root = readJson(path.join(repoRoot, "package.json"))
const packages: ReadonlyArray<{ readonly dir: string; readonly json: PackageJson }> = (
  root.workspaces as ReadonlyArray<string>
).map((dir) => ({ dir, json: readJson(path.join(repoRoot, dir, "package.json")) }))
const byName = new Map(packages.map((p) => [p.json.name, p.json]))
const effectVersion: string = readJson(path.join(repoRoot, "node_modules/effect/package.json")).version

describe("the published packages", () => {
  it("are all ours, described, licensed (with the license text) and declare the Node versions we test", () => {
    assert.isAbove(packages.length, 4)
    assert.match(fs.readFileSync(path.join(repoRoot, "LICENSE"), "utf8"), /^\s*Apache License\s+Version 2\.0/)
    for (const { dir, json } of packages) {
      assert.match(json.name, /^@gatehouse-edge\//, dir)
      assert.isAbove(json.description?.length ?? 0, 20, `${json.name}: description`)
      assert.strictEqual(json.license, "Apache-2.0", json.name)
      assert.strictEqual(json.engines?.node, root.engines.node, `${json.name}: engines.node`)
      assert.isTrue(fs.existsSync(path.join(repoRoot, dir, "README.md")), `${json.name}: README.md`)
    }
  })

  // A dependency would give each package its own copy whenever the app's effect differs from ours (npm nests one
  // per package), and effect's values do not cross copies: schemas built by one fail in the other at run time.
  it("take effect as a peer dependency (one copy, the app's), pinned for development", () => {
    for (const { json } of packages) {
      assert.notProperty(json.dependencies ?? {}, "effect", `${json.name}: effect in dependencies`)
      assert.strictEqual(json.peerDependencies?.effect, `^${effectVersion}`, `${json.name}: peer range`)
      assert.strictEqual(json.devDependencies?.effect, effectVersion, `${json.name}: pinned for development`)
    }
  })

  it("depend on each other at the versions they have", () => {
    for (const { json } of packages)
      for (const [name, version] of Object.entries(json.dependencies ?? {}))
        if (name.startsWith("@gatehouse-edge/")) {
          assert.isTrue(byName.has(name), `${json.name} depends on ${name}, which is not in the workspace`)
          assert.strictEqual(version, byName.get(name)!.version, `${json.name} → ${name}`)
        }
  })

  // What `npm install @gatehouse-edge/client` brings, read from the lockfile: the package's dependencies and the
  // peers npm installs with them, followed through the workspace and the registry packages.
  it("the client installs only its contract, ws and effect: no server package, nothing built natively", () => {
    const lock = readJson(path.join(repoRoot, "package-lock.json")).packages as Record<string, LockEntry>
    const workspaceDir = new Map(packages.map((p) => [p.json.name, p.dir]))
    const entryOf = (name: string): LockEntry => {
      const entry = lock[workspaceDir.get(name) ?? `node_modules/${name}`]
      assert.isDefined(entry, `${name} is not in package-lock.json`)
      return entry!
    }
    const installed = new Set<string>()
    const visit = (name: string) => {
      if (installed.has(name)) return
      installed.add(name)
      const entry = entryOf(name)
      const optionalPeers = Object.keys(entry.peerDependenciesMeta ?? {}).filter(
        (peer) => entry.peerDependenciesMeta![peer]!.optional === true
      )
      for (const dep of Object.keys(entry.dependencies ?? {})) visit(dep)
      for (const peer of Object.keys(entry.peerDependencies ?? {})) if (!optionalPeers.includes(peer)) visit(peer)
    }
    visit("@gatehouse-edge/client")
    installed.delete("@gatehouse-edge/client")
    assert.deepStrictEqual([...installed].sort(), ["@gatehouse-edge/contract", "effect", "ws"])
    for (const name of installed) assert.notStrictEqual(entryOf(name).hasInstallScript, true, `${name} builds`)
  })

  // The `gatehouse` program bundles effect, @effect/* and our packages (packages/server/tsup.config.ts); what they
  // import from node_modules is then resolved from the server package's directory, so the server must depend on it
  // itself, at the version the package that uses it was tested with. A dependency reached only through another
  // package may be nested below that package by npm (core's chokidar is), out of the program's reach.
  it("the server depends on everything the program it bundles imports, at the same versions", () => {
    const server = byName.get("@gatehouse-edge/server")!
    for (const { json } of packages)
      for (const [name, version] of Object.entries(json.dependencies ?? {}))
        if (name !== "effect" && !name.startsWith("@effect/") && !name.startsWith("@gatehouse-edge/"))
          assert.strictEqual(server.dependencies?.[name], version, `${json.name} imports ${name}`)
  })

  it("build before they are packed and carry the license; every export points into the packed files", () => {
    for (const { json } of packages) {
      assert.include(json.scripts?.prepack ?? "", "npm run build", `${json.name}: prepack builds`)
      assert.include(json.scripts?.prepack ?? "", "LICENSE", `${json.name}: prepack copies the license`)
      for (const [entry, conditions] of Object.entries(json.exports ?? {}))
        for (const [condition, target] of Object.entries(
          typeof conditions === "string" ? { default: conditions } : conditions
        )) {
          // npm packs package.json whatever `files` says.
          if (condition === "@gatehouse-edge/source" || target === "./package.json") continue
          const top = target.replace(/^\.\//, "").split("/")[0]!
          assert.include(json.files ?? [], top, `${json.name} ${entry} (${condition}) → ${target}`)
        }
    }
  })

  it("pack their README and no tests", () => {
    for (const { dir, json } of packages) {
      const [packed] = JSON.parse(
        execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
          cwd: path.join(repoRoot, dir),
          encoding: "utf8",
          stdio: ["ignore", "pipe", "ignore"]
        })
      ) as ReadonlyArray<{ readonly files: ReadonlyArray<{ readonly path: string }> }>
      const files = packed!.files.map((f) => f.path)
      assert.include(files, "README.md", json.name)
      assert.include(files, "package.json", json.name)
      assert.isFalse(
        files.some((f) => f.startsWith("test/")),
        `${json.name} packs tests`
      )
    }
  })
})
