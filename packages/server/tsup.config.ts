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

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: true,
  sourcemap: true,
  clean: true,
  // Stamps `GET /version` of a built server (see src/Version.ts).
  define: { __GATEHOUSE_VERSION__: JSON.stringify(version), __GATEHOUSE_COMMIT__: JSON.stringify(commit) }
})
