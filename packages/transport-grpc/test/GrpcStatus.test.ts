import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { Cause } from "effect"
import { SqlError } from "effect/sql"
import { callFailure } from "../src/GrpcStatus.js"

// A store that another process holds locked, as the SQLite driver reports it once it has waited its time.
const lockedStore = new SqlError.SqlError({
  reason: new SqlError.LockTimeoutError({
    cause: Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }),
    message: "Failed to execute statement",
    operation: "execute"
  })
})

describe("callFailure: a failed call's status", () => {
  it("a failing store is UNAVAILABLE and says what is wrong with it, still logged as unexpected", () => {
    const failure = callFailure(Cause.die(lockedStore), "req-1")
    assert.strictEqual(failure.error.code, grpc.status.UNAVAILABLE)
    assert.strictEqual(failure.error.details, "the server's store is locked by another process")
    assert.strictEqual(failure.code, "unavailable")
    assert.isTrue(failure.unexpected)
    assert.deepStrictEqual(failure.error.metadata?.get("x-request-id"), ["req-1"])
  })

  it("any other defect is INTERNAL with a generic message", () => {
    const failure = callFailure(Cause.die(new Error("/var/lib/gatehouse/secret.key: EACCES")), "req-2")
    assert.strictEqual(failure.error.code, grpc.status.INTERNAL)
    assert.strictEqual(failure.error.details, "internal error")
  })
})
