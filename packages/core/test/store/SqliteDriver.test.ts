import { spawnSync } from "node:child_process"
import { assert, describe, it } from "@effect/vitest"
import { sqliteDriverPackage } from "../../src/store/SqliteDriver.js"

const driverModule = new URL("../../src/store/SqliteDriver.ts", import.meta.url).href

// Opens and closes databases with prepared statements, then has V8 collect them: on Node ≥ 24.19 better-sqlite3
// 12.x aborts the process right there (SIGABRT in RemoveEnvironmentCleanupHook), which is what a long-running
// server does all day, and what the test process does at exit.
const churn = `
const { Database } = await import(${JSON.stringify(driverModule)})
for (let round = 0; round < 100; round++) {
  const db = new Database(":memory:")
  db.exec("CREATE TABLE t (x)")
  for (let i = 0; i < 20; i++) db.prepare("INSERT INTO t VALUES (" + i + ")").run()
  db.close()
}
globalThis.gc()
await new Promise((resolve) => setTimeout(resolve, 10))
globalThis.gc()
console.log("survived")
`

describe("the SQLite driver", () => {
  it("is better-sqlite3 13 (Node-API) from Node 22 on, and 12.x on Node 20", () => {
    const major = Number(process.versions.node.split(".")[0])
    assert.strictEqual(sqliteDriverPackage, major >= 22 ? "better-sqlite3" : "better-sqlite3-v12")
  })

  it("survives garbage collection of closed databases and statements on this Node", () => {
    const child = spawnSync(
      process.execPath,
      ["--expose-gc", "--import", import.meta.resolve("tsx"), "--input-type=module", "-e", churn],
      { encoding: "utf8", timeout: 60_000 }
    )
    assert.strictEqual(child.signal, null, child.stderr)
    assert.strictEqual(child.status, 0, child.stderr)
    assert.strictEqual(child.stdout.trim(), "survived")
  })
})
