import type { ErrorCode } from "@gatehouse-edge/core/domain"
import * as grpc from "@grpc/grpc-js"
import * as Data from "effect/Data"

// The machine code a gRPC status stands for (the inverse of core's table where it is one-to-one).
const codeOfStatus: Partial<Record<grpc.status, ErrorCode>> = {
  [grpc.status.INVALID_ARGUMENT]: "invalid_argument",
  [grpc.status.UNAUTHENTICATED]: "unauthenticated",
  [grpc.status.PERMISSION_DENIED]: "permission_denied",
  [grpc.status.NOT_FOUND]: "not_found",
  [grpc.status.ALREADY_EXISTS]: "already_exists",
  [grpc.status.FAILED_PRECONDITION]: "failed_precondition",
  [grpc.status.RESOURCE_EXHAUSTED]: "payload_too_large",
  [grpc.status.UNAVAILABLE]: "unavailable",
  [grpc.status.DEADLINE_EXCEEDED]: "timeout"
}

/** A call the server refused or could not complete: its gRPC status, the machine code and the server's message. */
export class AuthServiceCallError extends Data.TaggedError("AuthServiceCallError")<{
  readonly status: grpc.status
  readonly code: ErrorCode
  readonly message: string
  /** The server's id for this call (from `x-request-id`), to find it in the server log. */
  readonly requestId: string | undefined
}> {
  /** The status's name, as gRPC tools print it (`FAILED_PRECONDITION`). */
  get statusName(): string {
    return grpc.status[this.status] ?? String(this.status)
  }

  static fromServiceError(error: grpc.ServiceError): AuthServiceCallError {
    const requestId = error.metadata?.get("x-request-id")[0]
    return new AuthServiceCallError({
      status: error.code,
      code: codeOfStatus[error.code] ?? "internal",
      message: error.details || error.message,
      requestId: typeof requestId === "string" ? requestId : undefined
    })
  }
}
