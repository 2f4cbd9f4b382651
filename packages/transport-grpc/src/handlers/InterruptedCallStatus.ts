import * as grpc from "@grpc/grpc-js"

/**
 * How close to its deadline a cancel counts as the deadline passing. The server's deadline is the `grpc-timeout`
 * counted from when the call arrived, so it lies later than the client's by the call's way here (longer on a busy
 * machine); the client, at its own deadline, cancels the call, which then arrives just before the server's.
 */
export const deadlineSlackMs = 1_000

/**
 * How a call interrupted before its end ended, as the log names it: its deadline passed (DEADLINE_EXCEEDED), or its
 * client cancelled it (CANCELLED). grpc-js tells both as `cancelled`; a cancel within {@link deadlineSlackMs} of the
 * deadline is the client's deadline.
 */
export const interruptedCallStatus = (
  call: Pick<grpc.ServerUnaryCall<unknown, unknown>, "getDeadline">,
  now: number
): grpc.status => {
  const deadline = call.getDeadline()
  const at = deadline instanceof Date ? deadline.getTime() : deadline
  return Number.isFinite(at) && now >= at - deadlineSlackMs ? grpc.status.DEADLINE_EXCEEDED : grpc.status.CANCELLED
}
