import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/domain/index.ts", "src/services.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: true,
  sourcemap: true,
  clean: true
})
