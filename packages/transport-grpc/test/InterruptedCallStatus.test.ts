import { assert, describe, it } from "@effect/vitest"
import * as grpc from "@grpc/grpc-js"
import { deadlineSlackMs, interruptedCallStatus } from "../src/handlers/InterruptedCallStatus.js"

const callWithDeadline = (deadline: grpc.Deadline) => ({ getDeadline: () => deadline })

describe("the status of an interrupted call", () => {
  it("is DEADLINE_EXCEEDED past the deadline, and for a cancel just before it (the client's own deadline)", () => {
    const at = 1_000_000
    assert.strictEqual(interruptedCallStatus(callWithDeadline(at), at), grpc.status.DEADLINE_EXCEEDED)
    assert.strictEqual(interruptedCallStatus(callWithDeadline(new Date(at)), at + 5), grpc.status.DEADLINE_EXCEEDED)
    // The cancel a client sends at its deadline reaches the server before the server's (later) deadline.
    assert.strictEqual(interruptedCallStatus(callWithDeadline(at), at - 40), grpc.status.DEADLINE_EXCEEDED)
  })

  it("is CANCELLED for a cancel well before the deadline, or of a call without one", () => {
    const at = 1_000_000
    assert.strictEqual(interruptedCallStatus(callWithDeadline(at), at - deadlineSlackMs - 1), grpc.status.CANCELLED)
    assert.strictEqual(interruptedCallStatus(callWithDeadline(Infinity), at), grpc.status.CANCELLED)
  })
})
