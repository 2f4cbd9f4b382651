import type { IncomingMessage } from "node:http"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as HttpServerError from "effect/http/HttpServerError"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import { webSocketOf } from "../websocket/TrackedWebSocket.js"

/**
 * The status an interrupted request is logged with, the one Effect's server answers it with when it still can:
 * 499 (nginx's "client closed request") when its client went away (the Node adapter interrupts the request's
 * fiber with `ClientAbort` once the connection closes before the answer), 503 when the server stopped it
 * (shutting down: the serving scope interrupts what is still in flight). A WebSocket whose handshake completed
 * keeps the 101 its client got, however its session ended.
 */
export const interruptedStatus = (
  request: HttpServerRequest.HttpServerRequest,
  cause: Cause.Cause<unknown>
): number => {
  if (upgradedToWebSocket(request)) return 101
  return Context.getOrUndefined(Cause.annotations(cause), HttpServerError.ClientAbort) === true ? 499 : 503
}

const upgradedToWebSocket = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const connection = (request.source as Partial<IncomingMessage> | undefined)?.socket
  return connection !== undefined && connection !== null && webSocketOf(connection) !== undefined
}
