import { assert, describe, it } from "@effect/vitest"
import { isHaTask, taskWarnings, warningsNote } from "../../src/hypervisor/TaskOutcome.js"

describe("a finished task's outcome", () => {
  it("succeeded on OK and on WARNINGS: <n> (as pve-common's upid_status_is_error), failed on anything else", () => {
    assert.strictEqual(taskWarnings("OK"), 0)
    assert.strictEqual(taskWarnings("WARNINGS: 1"), 1)
    assert.strictEqual(taskWarnings("WARNINGS: 12"), 12)
    for (const failed of ["startup for container '101' failed", "unexpected status", "WARNINGS: x", "WARNINGS:1", ""]) {
      assert.isUndefined(taskWarnings(failed), failed)
    }
    assert.isUndefined(taskWarnings(undefined))
  })

  it("says the warnings in words", () => {
    assert.deepStrictEqual([0, 1, 3].map(warningsNote), [undefined, "1 warning", "3 warnings"])
  })

  it("knows the HA manager's tasks by the UPID's type", () => {
    assert.isTrue(isHaTask("UPID:pve1:0002A9D4:00F1B2C3:6740B1A2:hastart:101:root@pam:"))
    assert.isTrue(isHaTask("UPID:pve1:0002A9D4:00F1B2C3:6740B1A2:hastop:101:root@pam!ci:"))
    assert.isFalse(isHaTask("UPID:pve1:0002A9D4:00F1B2C3:6740B1A2:vzstart:101:root@pam:"))
  })
})
