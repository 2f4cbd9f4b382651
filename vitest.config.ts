import { defineConfig } from "vitest/config"
import "./test/support/node20-polyfills.js"

// Tests run straight from `src/` through the `@gatehouse-edge/source` export condition: no build needed.
export default defineConfig({
  resolve: { conditions: ["@gatehouse-edge/source"] },
  ssr: { resolve: { conditions: ["@gatehouse-edge/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The summary is the last thing a run prints (CI reads it); vitest's import-time tips would follow it.
    experimental: { diagnostics: false }
  }
})
