import { defineConfig } from "tsup"

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "domain/index": "src/domain/index.ts",
    // The configuration alone (the loader, its schema, YAML): what the CLI's client commands need to find a server.
    "config/index": "src/config/index.ts",
    // The route validator alone (YAML, effect's Schema): what `gatehouse validate` needs to check route files.
    "routes/index": "src/routes/index.ts",
    services: "src/services.ts",
    postgres: "src/postgres.ts",
    // The validation worker thread's module: `spawnValidationWorker` (bundled into index.js or a chunk, all at the
    // root of dist/) starts it as `new URL("./ValidationWorker.js", import.meta.url)`.
    ValidationWorker: "src/validation/ValidationWorker.ts"
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  dts: true,
  sourcemap: true,
  clean: true
})
