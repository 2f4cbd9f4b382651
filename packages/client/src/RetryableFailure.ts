import { type ApiErrorStatics, closeCodeOf, isSlowConsumerClose } from "@gatehouse-edge/contract/domain"
import * as HttpClientError from "effect/http/HttpClientError"
import { WebSocketClosed } from "./WebSocketClosed.js"

/**
 * Close codes after which the same stream, opened again, can work: 1001 the server went away (a restart), 1006 the
 * connection was lost (or the client's silence timeout cut it), 1011 the server or its upstream failed, 1012 service
 * restart, 1013 try again later, 1014 bad gateway. 1008 (a refusal: credentials, permission), 1003 and 1009 (data
 * refused) would be refused again, and 1000 is a normal end. A 1008 for a consumer too slow is the exception (see
 * `isSlowConsumerClose`; the server's, or a browser page's own, see `BrowserWebSocket`): it picks up again as any
 * reconnect does, the events stream without a gap.
 */
const retryableCloseCodes: ReadonlySet<number> = new Set([1001, 1006, 1011, 1012, 1013, 1014])

// The statics of an error made by `ApiError` (its machine code), by its class: undefined for any other error.
const apiErrorOf = (error: unknown): ApiErrorStatics | undefined =>
  (error as { readonly constructor?: { readonly apiError?: ApiErrorStatics } } | null)?.constructor?.apiError

/**
 * Whether a stream that failed with `error` may succeed when opened again: the connection failed (refused, reset,
 * timed out), the socket closed abnormally (see the codes above), or the upgrade was answered with a status a retry
 * can fix (5xx, 429), by the server or by a proxy in front of it. A typed refusal counts as its close code would,
 * from the one table (`closeCodeOf`): so `ServerShuttingDown` (503) is retried and `Unauthenticated`,
 * `PermissionDenied`, `EventsTrimmed` are not. A frame that does not decode (`SchemaError`) is not either.
 */
export const isRetryable = (error: unknown): boolean => {
  if (error instanceof WebSocketClosed) {
    return retryableCloseCodes.has(error.code) || isSlowConsumerClose(error.code, error.reason)
  }
  if (HttpClientError.isHttpClientError(error)) {
    const reason = error.reason
    if (reason instanceof HttpClientError.TransportError) return true
    // Whatever the reason (an undeclared status, a body that is not the API's error), an answer's status says
    // whether asking again can help: a reverse proxy's own 502 page while the server restarts is retried, a 200 that
    // does not decode is not.
    const status = error.response?.status
    return status !== undefined && (status >= 500 || status === 429)
  }
  const statics = apiErrorOf(error)
  return statics !== undefined && retryableCloseCodes.has(closeCodeOf(statics.code))
}
