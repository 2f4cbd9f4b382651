import type { ErrorCode } from "@gatehouse-edge/core/domain"
import * as grpc from "@grpc/grpc-js"
import * as Effect from "effect/Effect"

/** One finished AuthService call, as the log records it: the gRPC counterpart of HTTP's access-log line. */
export interface CallLogEntry {
  /** The full method name, as gRPC tools print it: `gatehouse.v1.AuthService/AuthApprove`. */
  readonly method: string
  /** The status the call ended with, by its name (`OK`, `NOT_FOUND`, `CANCELLED` when the client went away). */
  readonly code: string
  readonly duration_ms: number
  /** The call's id, also sent back in the trailers (`x-request-id`). */
  readonly request_id: string
  /** The error's machine code (`not_found`, `rate_limited`), as in the trailers, when the call failed. */
  readonly error?: ErrorCode | undefined
}

/** `NOT_FOUND` for 5: grpc-js's `status` is a numeric enum, which maps its values back to their names. */
export const statusName = (code: grpc.status): string => grpc.status[code] ?? String(code)

/** The metadata every answer carries, success or not: the call's `x-request-id`, to match a report to its line. */
export const requestIdMetadata = (requestId: string): grpc.Metadata => {
  const metadata = new grpc.Metadata()
  metadata.set("x-request-id", requestId)
  return metadata
}

/** Records one finished call at level Info (nothing when the minimum log level is above it). */
export const logCall = (entry: CallLogEntry): Effect.Effect<void> =>
  Effect.logInfo("grpc").pipe(Effect.annotateLogs({ ...entry }))
