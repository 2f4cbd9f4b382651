import type { Disconnected, Reconnected, WatchOptions } from "@gatehouse-edge/client"
import * as Console from "effect/Console"
import * as Flag from "effect/cli/Flag"
import * as Duration from "effect/Duration"
import * as HttpClientError from "effect/http/HttpClientError"
import { transportCause } from "./HttpConnection.js"

/** `--no-reconnect`: a follow ends with the error when the connection is lost, instead of reconnecting. */
export const reconnectFlag = Flag.Boolean("reconnect").pipe(
  Flag.withDescription(
    "Reconnect when the connection is lost or the server restarts (default; --no-reconnect: end with the error)"
  ),
  Flag.withDefault(true)
)

// Why the connection was lost, on one line: the close (code and reason), why no connection could be made
// (ECONNREFUSED while the server restarts), or the status of a refusal.
const why = (error: unknown): string => {
  if (HttpClientError.isHttpClientError(error)) {
    const reason = error.reason
    if (reason instanceof HttpClientError.TransportError) return transportCause(reason.cause) ?? error.message
    if (reason instanceof HttpClientError.StatusCodeError) return `the server answered ${reason.response.status}`
  }
  return error instanceof Error ? error.message : String(error)
}

const seconds = (delay: Duration.Duration) => `${(Duration.toMillis(delay) / 1000).toFixed(1)} s`

const lost = (notice: Disconnected) =>
  Console.error(`gatehouse: connection lost (${why(notice.error)}), reconnecting in ${seconds(notice.delay)}`)

// A log tail cannot resume at a line: say what the reader sees, rather than let a repeated line look like a new one.
const back = (notice: Reconnected) =>
  Console.error(
    notice.resumption === "tail"
      ? "gatehouse: reconnected; the last lines follow again (lines written while disconnected may be missing)"
      : "gatehouse: reconnected"
  )

/**
 * The options of a follow's stream: reconnecting (the client's backoff: 0.5 s doubling to 30 s, jittered, no limit)
 * with a line on stderr when the connection is lost and when it is back, so stdout keeps only what is followed.
 */
export const followOptions = (reconnect: boolean): WatchOptions =>
  reconnect ? { reconnect: { onDisconnect: lost, onReconnect: back } } : {}
