import { type ErrorCode, errorCodeOf, grpcStatusOf, wireDetailsOf } from "@gatehouse-edge/core/domain"
import { storeTroubleIn } from "@gatehouse-edge/core/services"
import * as grpc from "@grpc/grpc-js"
import * as Cause from "effect/Cause"
import { requestIdMetadata } from "./CallLog.js"
import { errorCodeKey, errorDetailsKey } from "./ErrorMetadata.js"

/** What a failed call sends: its status from the one error table, and whether the cause needs logging. */
export interface CallFailure {
  readonly error: Partial<grpc.StatusObject>
  /** The error's machine code, as the trailers carry it. */
  readonly code: ErrorCode
  /** A defect or an unmapped error: the client gets a generic message; the cause belongs in the log. */
  readonly unexpected: boolean
}

const metadataOf = (requestId: string, code: ErrorCode, details: ReadonlyArray<unknown> | undefined) => {
  const metadata = requestIdMetadata(requestId)
  metadata.set(errorCodeKey, code)
  if (details !== undefined) metadata.set(errorDetailsKey, Buffer.from(JSON.stringify(details), "utf8"))
  return metadata
}

/**
 * Maps a failed call's cause to its gRPC status through `errorCodeOf` + `grpcStatusOf` (core's one table), with the
 * error's own message. A defect, or anything without a code, is INTERNAL with a generic message: never UNKNOWN,
 * never internals; except a failing store, which is UNAVAILABLE naming what is wrong with it. Trailing metadata carries the request id (`x-request-id`, to match a report to the log line),
 * the machine code and the details of the error (see {@link errorCodeKey}, {@link errorDetailsKey}).
 */
export const callFailure = (cause: Cause.Cause<unknown>, requestId: string): CallFailure => {
  const failure = cause.reasons.find(Cause.isFailReason)
  const code = failure === undefined ? "internal" : errorCodeOf(failure.error)
  if (code === "internal") {
    // A store that cannot serve (full, locked, damaged, ...) is UNAVAILABLE, saying which; still logged in full.
    const trouble = storeTroubleIn(cause)
    if (trouble !== undefined) {
      const metadata = metadataOf(requestId, "unavailable", undefined)
      const details = `the server's store ${trouble.problem}`
      return { error: { code: grpc.status.UNAVAILABLE, details, metadata }, code: "unavailable", unexpected: true }
    }
    const metadata = metadataOf(requestId, code, undefined)
    return { error: { code: grpc.status.INTERNAL, details: "internal error", metadata }, code, unexpected: true }
  }
  const error = failure!.error
  const message = error instanceof Error ? error.message : code
  const metadata = metadataOf(requestId, code, wireDetailsOf(error))
  return { error: { code: grpcStatusOf(code), details: message, metadata }, code, unexpected: false }
}
