import { errorCodeOf, grpcStatusOf } from "@gatehouse-edge/core/domain"
import * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"

/** What a failed call sends: its status from the one error table, and whether the cause needs logging. */
export interface CallFailure {
  readonly error: Partial<grpc.StatusObject>
  /** A defect or an unmapped error: the client gets a generic message; the cause belongs in the log. */
  readonly unexpected: boolean
}

/**
 * Maps a failed call's cause to its gRPC status through `errorCodeOf` + `grpcStatusOf` (core's one table), with the
 * error's own message. A defect, or anything without a code, is INTERNAL with a generic message: never UNKNOWN,
 * never internals. The request id travels back as trailing metadata `x-request-id`, so a report can be matched
 * to the log line.
 */
export const callFailure = (cause: Cause.Cause<unknown>, requestId: string): CallFailure => {
  const metadata = new grpc.Metadata()
  metadata.set("x-request-id", requestId)
  const failure = cause.reasons.find(Cause.isFailReason)
  const code = failure === undefined ? "internal" : errorCodeOf(failure.error)
  if (code === "internal") {
    return { error: { code: grpc.status.INTERNAL, details: "internal error", metadata }, unexpected: true }
  }
  const message = failure!.error instanceof Error ? failure!.error.message : code
  return { error: { code: grpcStatusOf(code), details: message, metadata }, unexpected: false }
}
