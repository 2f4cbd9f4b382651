import { type ApiErrorStatics, closeCodeOf, isSlowConsumerClose } from "@gatehouse-edge/contract/domain"
import * as HttpClientError from "effect/http/HttpClientError"
import { WebSocketClosed } from "./WebSocketClosed.js"

/**
 * Close codes after which the same stream, opened again, can work: 1001 the server went away (a restart), 1006 the
 * connection was lost (or the client's silence timeout cut it), 1011 the server or its upstream failed, 1012 service
 * restart, 1013 try again later, 1014 bad gateway. 1008 (a refusal: credentials, permission), 1003 and 1009 (data
 * refused) would be refused again, and 1000 is a normal end. A 1008 for a consumer too slow is the exception (see
 * `isSlowConsumerClose`): it picks up again as any reconnect does, the events stream without a gap.
 */
const retryableCloseCodes: ReadonlySet<number> = new Set([1001, 1006, 1011, 1012, 1013, 1014])

// The statics of an error made by `ApiError` (its machine code), by its class: undefined for any other error.
const apiErrorOf = (error: unknown): ApiErrorStatics | undefined =>
  (error as { readonly constructor?: { readonly apiError?: ApiErrorStatics } } | null)?.constructor?.apiError

/**
 * Whether a stream that failed with `error` may succeed when opened again: the connection failed (refused, reset,
 * timed out), the socket closed abnormally (see the codes above), or the upgrade was refused with a status a retry
 * can fix (5xx, 429). A typed refusal counts as its close code would, from the one table (`closeCodeOf`): so
 * `ServerShuttingDown` (503) is retried and `Unauthenticated`, `PermissionDenied`, `EventsTrimmed` are not. A frame
 * that does not decode (`SchemaError`) is not either.
 */
export const isRetryable = (error: unknown): boolean => {
  if (error instanceof WebSocketClosed) {
    return retryableCloseCodes.has(error.code) || isSlowConsumerClose(error.code, error.reason)
  }
  if (HttpClientError.isHttpClientError(error)) {
    const reason = error.reason
    if (reason instanceof HttpClientError.TransportError) return true
    if (reason instanceof HttpClientError.StatusCodeError) {
      const status = reason.response.status
      return status >= 500 || status === 429
    }
    return false
  }
  const statics = apiErrorOf(error)
  return statics !== undefined && retryableCloseCodes.has(closeCodeOf(statics.code))
}
