import * as Context from "effect/Context"
import type * as Fiber from "effect/Fiber"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Logger from "effect/Logger"
import * as References from "effect/References"

// A request's id is kept on the request itself (its `source`, the Node request), under a key only this module
// knows: a log line written by the fiber serving the request, or by a fiber it forked, finds it through the
// request in its context. Measured (bench/http-stack.ts): annotating every request's context cost ~20 µs a
// request; and in a profile of the server under load (perf), WeakMaps of ids by fiber and by request took ~2.5%
// of a request's CPU in write barriers and garbage collection, which a property does not.
const requestIdKey: unique symbol = Symbol("@gatehouse-edge/transport-http/requestId")

interface WithRequestId {
  [requestIdKey]?: string
}

const sourceOf = (request: HttpServerRequest.HttpServerRequest): WithRequestId | undefined =>
  typeof request.source === "object" && request.source !== null ? (request.source as WithRequestId) : undefined

/** Records the id of `request` (see {@link withRequestIds}). */
export const rememberRequestId = (request: HttpServerRequest.HttpServerRequest, id: string): void => {
  const source = sourceOf(request)
  if (source !== undefined) source[requestIdKey] = id
}

/**
 * The id remembered for a Node request (the `source` of its `HttpServerRequest`), for what answers it outside the
 * Effect response: the 101 of a WebSocket handshake, which `ws` writes itself.
 */
export const rememberedRequestId = (source: object): string | undefined => (source as WithRequestId)[requestIdKey]

/** The id of the request a fiber serves, if it serves one. */
export const requestIdOf = (fiber: Fiber.Fiber<unknown, unknown>): string | undefined => {
  const request = Context.getOrUndefined(fiber.context, HttpServerRequest.HttpServerRequest)
  return request === undefined ? undefined : sourceOf(request)?.[requestIdKey]
}

/**
 * `logger`, with the `request_id` annotation added to every entry written while serving a request (the access
 * log line, errors, and whatever the handlers and services log). The annotation is added when a line is written,
 * not when the request starts, so requests that log nothing pay nothing.
 */
export const withRequestIds = <Message, Output>(
  logger: Logger.Logger<Message, Output>
): Logger.Logger<Message, Output> =>
  Logger.make((options) => {
    const requestId = requestIdOf(options.fiber)
    if (requestId === undefined) return logger.log(options)
    const annotations = { ...options.fiber.getRef(References.CurrentLogAnnotations), request_id: requestId }
    // Loggers read annotations from the fiber: hand them a view of it whose annotations include the id.
    const fiber: Fiber.Fiber<unknown, unknown> = Object.create(options.fiber, {
      getRef: {
        value: <A>(ref: Context.Reference<A>): A =>
          (ref as unknown) === References.CurrentLogAnnotations ? (annotations as A) : options.fiber.getRef(ref)
      }
    })
    return logger.log({ ...options, fiber })
  })
