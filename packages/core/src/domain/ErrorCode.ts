import { Schema } from "effect"

/**
 * The one table that maps each machine error code to its HTTP status and gRPC status code.
 * Every transport derives its status from here; nothing else in the codebase switches over error tags.
 */
export const ErrorCodes = {
  invalid_argument: { http: 400, grpc: 3 },
  invalid_yaml: { http: 400, grpc: 3 },
  unauthenticated: { http: 401, grpc: 16 },
  permission_denied: { http: 403, grpc: 7 },
  not_found: { http: 404, grpc: 5 },
  method_not_allowed: { http: 405, grpc: 12 },
  already_exists: { http: 409, grpc: 6 },
  conflict: { http: 409, grpc: 10 },
  failed_precondition: { http: 409, grpc: 9 },
  payload_too_large: { http: 413, grpc: 8 },
  unsupported_media_type: { http: 415, grpc: 3 },
  validation_failed: { http: 422, grpc: 3 },
  upgrade_required: { http: 426, grpc: 9 },
  rate_limited: { http: 429, grpc: 8 },
  internal: { http: 500, grpc: 13 },
  bad_gateway: { http: 502, grpc: 14 },
  unavailable: { http: 503, grpc: 14 },
  timeout: { http: 504, grpc: 4 }
} as const satisfies Record<string, { readonly http: number; readonly grpc: number }>

/** A stable snake_case machine code carried in every error body (`error.code`). */
export type ErrorCode = keyof typeof ErrorCodes

/** Schema of {@link ErrorCode}. */
export const ErrorCode = Schema.Literals(Object.keys(ErrorCodes) as Array<ErrorCode>)

/** The HTTP status that a code maps to. */
export const httpStatusOf = (code: ErrorCode): number => ErrorCodes[code].http

/** The gRPC status code (numeric, as in `@grpc/grpc-js` `status`) that a code maps to. */
export const grpcStatusOf = (code: ErrorCode): number => ErrorCodes[code].grpc
