import * as Schema from "effect/Schema"

/**
 * The one table that maps each machine error code to its HTTP status, gRPC status code and WebSocket close code.
 * Every transport derives its status from here; nothing else in the codebase switches over error tags.
 *
 * WebSocket close codes (RFC 6455 §7.4): 1008 policy violation for anything the client did or may not do, 1003 for
 * data the endpoint does not accept, 1009 for a message over the limit, 1011 when the server or an upstream failed,
 * 1013 "try again later", 1001 when the server goes away.
 */
export const ErrorCodes = {
  invalid_argument: { http: 400, grpc: 3, ws: 1008 },
  invalid_yaml: { http: 400, grpc: 3, ws: 1008 },
  unauthenticated: { http: 401, grpc: 16, ws: 1008 },
  permission_denied: { http: 403, grpc: 7, ws: 1008 },
  not_found: { http: 404, grpc: 5, ws: 1008 },
  method_not_allowed: { http: 405, grpc: 12, ws: 1008 },
  already_exists: { http: 409, grpc: 6, ws: 1008 },
  conflict: { http: 409, grpc: 10, ws: 1008 },
  failed_precondition: { http: 409, grpc: 9, ws: 1008 },
  // A conditional request (`If-Match`) whose condition no longer holds: HTTP's own 412, gRPC's FAILED_PRECONDITION.
  precondition_failed: { http: 412, grpc: 9, ws: 1008 },
  // A position the client kept (an event id) that the server has since dropped: gRPC OUT_OF_RANGE, as a read
  // before the start of what is kept.
  gone: { http: 410, grpc: 11, ws: 1008 },
  // A request whose headers or body did not arrive within the server's time for one (Node's `requestTimeout`).
  request_timeout: { http: 408, grpc: 4, ws: 1008 },
  payload_too_large: { http: 413, grpc: 8, ws: 1009 },
  unsupported_media_type: { http: 415, grpc: 3, ws: 1003 },
  validation_failed: { http: 422, grpc: 3, ws: 1008 },
  headers_too_large: { http: 431, grpc: 8, ws: 1009 },
  upgrade_required: { http: 426, grpc: 9, ws: 1008 },
  rate_limited: { http: 429, grpc: 8, ws: 1013 },
  slow_consumer: { http: 429, grpc: 8, ws: 1008 },
  internal: { http: 500, grpc: 13, ws: 1011 },
  bad_gateway: { http: 502, grpc: 14, ws: 1011 },
  unavailable: { http: 503, grpc: 14, ws: 1011 },
  shutting_down: { http: 503, grpc: 14, ws: 1001 },
  timeout: { http: 504, grpc: 4, ws: 1011 }
} as const satisfies Record<string, { readonly http: number; readonly grpc: number; readonly ws: number }>

/** A stable snake_case machine code carried in every error body (`error.code`). */
export type ErrorCode = keyof typeof ErrorCodes

/** Schema of {@link ErrorCode}. */
export const ErrorCode = Schema.Literals(Object.keys(ErrorCodes) as Array<ErrorCode>)

/** The HTTP status that a code maps to. */
export const httpStatusOf = (code: ErrorCode): number => ErrorCodes[code].http

/** The gRPC status code (numeric, as in `@grpc/grpc-js` `status`) that a code maps to. */
export const grpcStatusOf = (code: ErrorCode): number => ErrorCodes[code].grpc

/** The WebSocket close code a stream ends with when it fails with an error of this code. */
export const closeCodeOf = (code: ErrorCode): number => ErrorCodes[code].ws

/**
 * The machine code of any error instance: the code its `ApiError` class declares, and `internal` for everything
 * else (a defect, a driver error that escaped its mapping), so a transport can answer any failure without knowing
 * its class.
 */
export const errorCodeOf = (error: unknown): ErrorCode => {
  const statics = (error as { readonly constructor?: { readonly apiError?: { readonly code?: unknown } } } | null)
    ?.constructor?.apiError
  const code = statics?.code
  return typeof code === "string" && Object.hasOwn(ErrorCodes, code) ? (code as ErrorCode) : "internal"
}
