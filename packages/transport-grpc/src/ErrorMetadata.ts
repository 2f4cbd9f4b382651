/**
 * Trailing metadata of a failed call, beyond `x-request-id`. Several machine codes share a gRPC status
 * (FAILED_PRECONDITION: expired, already decided, the wrong kind of request), and the status message is for people:
 * these say which error it is, as an HTTP error body's `error.code` and `error.details` do.
 */

/** The error's machine code (`failed_precondition`), ASCII. */
export const errorCodeKey = "gatehouse-error-code"

/** The error's `details` as a JSON array in UTF-8 (`[{"reason": "AuthRequestExpired", "auth_id": "..."}]`). */
export const errorDetailsKey = "gatehouse-error-details-bin"
