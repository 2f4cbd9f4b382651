import { defineConfig } from "tsup"

export default defineConfig({
  // One build for both entries: their shared modules land in one chunk, so `domain` and `api` hand out the same
  // classes (an error decoded by the API's schemas is `instanceof` the class imported from `domain`).
  entry: { "domain/index": "src/domain/index.ts", api: "src/api.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: true,
  sourcemap: true,
  clean: true
})
