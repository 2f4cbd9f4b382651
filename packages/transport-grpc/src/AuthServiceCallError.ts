import { type ErrorCode, ErrorCodes, InvalidArgument, wireDetailsOf } from "@gatehouse-edge/core/domain"
import * as grpc from "@grpc/grpc-js"
import * as Data from "effect/Data"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { errorCodeKey, errorDetailsKey } from "./ErrorMetadata.js"

// The machine code a gRPC status stands for (the inverse of core's table where it is one-to-one), for a server that
// sends no `gatehouse-error-code`.
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

/** The details a server sent: a JSON array, or nothing usable (absent, or not what this client understands). */
const decodeDetails = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Array(Schema.Unknown)))
const detailsOf = (value: grpc.MetadataValue | undefined): ReadonlyArray<unknown> | undefined =>
  Buffer.isBuffer(value) ? Option.getOrUndefined(decodeDetails(value.toString("utf8"))) : undefined

/** A call the server refused or could not complete: its gRPC status, the machine code and the server's message. */
export class AuthServiceCallError extends Data.TaggedError("AuthServiceCallError")<{
  readonly status: grpc.status
  readonly code: ErrorCode
  readonly message: string
  /** The server's id for this call (from `x-request-id`), to find it in the server log. */
  readonly requestId: string | undefined
  /**
   * What the error is, beyond its code, as in an HTTP error body's `details`: `[{"reason": "<ErrorTag>", ...fields}]`
   * (e.g. `AuthRequestExpired` and `AuthRequestAlreadyDecided` are both `failed_precondition`), or the issues of
   * invalid input; undefined when the server sent none.
   */
  readonly details: ReadonlyArray<unknown> | undefined
}> {
  /** The status's name, as gRPC tools print it (`FAILED_PRECONDITION`). */
  get statusName(): string {
    return grpc.status[this.status] ?? String(this.status)
  }

  /** A request this client refuses before sending it, as the server would: INVALID_ARGUMENT naming the field. */
  static invalidArgument(field: string, problem: string): AuthServiceCallError {
    const refusal = new InvalidArgument({
      message: `${field}: ${problem}`,
      issues: [{ path: [field], message: problem }]
    })
    return new AuthServiceCallError({
      status: grpc.status.INVALID_ARGUMENT,
      code: "invalid_argument",
      message: refusal.message,
      requestId: undefined,
      details: wireDetailsOf(refusal)
    })
  }

  /** A call this client gave up on as if its connection were lost (UNAVAILABLE, which callers retry). */
  static unavailable(message: string): AuthServiceCallError {
    return new AuthServiceCallError({
      status: grpc.status.UNAVAILABLE,
      code: "unavailable",
      message,
      requestId: undefined,
      details: undefined
    })
  }

  static fromServiceError(error: grpc.ServiceError): AuthServiceCallError {
    const requestId = error.metadata?.get("x-request-id")[0]
    const sentCode = error.metadata?.get(errorCodeKey)[0]
    return new AuthServiceCallError({
      status: error.code,
      code:
        typeof sentCode === "string" && Object.hasOwn(ErrorCodes, sentCode)
          ? (sentCode as ErrorCode)
          : (codeOfStatus[error.code] ?? "internal"),
      // grpc-js ends a connection failure with its resolver's note, most often empty.
      message: (error.details || error.message).replace(/\. Resolution note: $/, ""),
      requestId: typeof requestId === "string" ? requestId : undefined,
      details: detailsOf(error.metadata?.get(errorDetailsKey)[0])
    })
  }
}
