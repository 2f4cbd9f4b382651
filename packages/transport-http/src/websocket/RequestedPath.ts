import type * as HttpServerRequest from "effect/http/HttpServerRequest"

// A message echoes the path it is about, but a client can send kilobytes of it: keep messages (and logs) short.
const MAX_ECHOED_PATH = 120

/** `path` as a message or log line echoes it: at most 120 characters, then how long it was. */
export const shortened = (path: string): string =>
  path.length <= MAX_ECHOED_PATH ? path : `${path.slice(0, MAX_ECHOED_PATH)}… (${path.length} characters)`

/** The path `request` asked for, without its query, as it was sent (percent-encoded). */
export const pathOf = (request: HttpServerRequest.HttpServerRequest): string => request.url.split("?")[0]!
