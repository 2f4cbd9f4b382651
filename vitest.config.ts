import * as os from "node:os"
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
    // At least two test files at a time, also on 2 cores (vitest's default is one fewer worker than cores): a file
    // spends most of its time waiting on the servers and daemons it starts. On the 2-core machine CI went from ~29 to
    // ~20 min (Node 20's tests 779 to 493 s, Node 24's 644 to 388 s), every test passing.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // The summary is the last thing a run prints (CI reads it); vitest's import-time tips would follow it.
    experimental: { diagnostics: false }
  }
})
