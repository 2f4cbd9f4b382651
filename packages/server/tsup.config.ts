import { execSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { defineConfig } from "tsup"

const version = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")).version as string
const commit = (() => {
  try {
    return execSync("git rev-parse --short HEAD", { encoding: "utf8" }).trim()
  } catch {
    return "unknown"
  }
})()

/** Whether a package is bundled into the program (see below) rather than imported from node_modules. */
const isBundled = (name: string) =>
  name === "effect" || name.startsWith("@effect/") || name.startsWith("@gatehouse-edge/")

const dependenciesIn = (manifest: URL): Array<string> => {
  const { dependencies = {}, optionalDependencies = {} } = JSON.parse(readFileSync(manifest, "utf8")) as {
    dependencies?: Record<string, string>
    optionalDependencies?: Record<string, string>
  }
  return [...Object.keys(dependencies), ...Object.keys(optionalDependencies)]
}

// The bundled packages: ours, and the @effect/* packages they use (hoisted to the repository's node_modules).
const bundledManifests = [
  ...["contract", "core", "transport-http", "transport-grpc", "client", "server"].map(
    (name) => new URL(`../${name}/package.json`, import.meta.url)
  ),
  ...["platform-node", "platform-node-shared", "sql-pg"].map(
    (name) => new URL(`../../node_modules/@effect/${name}/package.json`, import.meta.url)
  )
]

/** What the bundled packages may import from node_modules: their dependencies that are not bundled themselves. */
const programImports = [
  ...new Set(bundledManifests.flatMap(dependenciesIn).filter((name) => !isBundled(name) && !name.startsWith("@types/")))
].sort()

const shared = {
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  // Stamps `GET /version` of a built server (see src/Version.ts).
  define: { __GATEHOUSE_VERSION__: JSON.stringify(version), __GATEHOUSE_COMMIT__: JSON.stringify(commit) }
} as const

export default defineConfig([
  // The library entry: effect and our packages stay imports, so an embedding app has one copy of each (its own).
  { ...shared, entry: ["src/index.ts"], dts: true },
  // The `gatehouse` program, and the validation worker it starts: effect, @effect/* and our packages are bundled in,
  // each module tree-shaken and without its comments. Every module a process loads stays in V8's heap as source and
  // compiled code, and effect's modules are mostly documentation: bundled, the idle server's heap is ~11 MiB smaller
  // (bench/README.md, "Server memory") and a command starts sooner. The drivers and protocol libraries stay imports
  // from node_modules (native code, files read next to their modules); package.json lists each as a dependency,
  // checked by test/Packaging.test.ts.
  {
    ...shared,
    entry: { bin: "src/bin.ts", ValidationWorker: "src/ValidationWorker.ts" },
    noExternal: [/^effect(\/|$)/, /^@effect\//, /^@gatehouse-edge\//],
    external: programImports,
    // The maps point into node_modules and our packages' sources, which are installed anyway: copying every source
    // into them would make the package ~10 MiB larger.
    esbuildOptions: (options) => {
      options.sourcesContent = false
    }
  }
])
