import { assert, describe, it } from "@effect/vitest"
import { describeCause, StoreOpenFailed } from "../../src/store/StoreErrors.js"

describe("describeCause: what a store failure says, from the outermost error down", () => {
  it("joins the chain of causes, with a driver's code where its message lacks it", () => {
    const driver = Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" })
    assert.strictEqual(
      describeCause(new Error("Failed to prepare statement", { cause: driver })),
      "Failed to prepare statement: file is not a database (SQLITE_NOTADB)"
    )
  })

  // A migration's failure may carry such a cause; `String` would throw a TypeError in place of the startup error.
  it("describes causes String cannot: no prototype, a toString that throws, a message-bearing plain object", () => {
    const bare = Object.assign(Object.create(null), { step: 14 })
    const throwing = {
      toString() {
        throw new Error("no")
      }
    }
    assert.strictEqual(describeCause(bare), '{"step":14}')
    assert.strictEqual(describeCause(throwing), "[toString threw]")
    assert.strictEqual(
      describeCause(
        new Error("migration 14 failed", { cause: Object.assign(Object.create(null), { message: "no such table" }) })
      ),
      "migration 14 failed: no such table"
    )
    assert.strictEqual(
      new StoreOpenFailed({ filename: "/data/gatehouse.db", cause: bare }).message,
      'cannot open the store /data/gatehouse.db: {"step":14}'
    )
  })
})
