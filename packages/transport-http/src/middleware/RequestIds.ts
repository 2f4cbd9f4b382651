import * as Context from "effect/Context"
import type * as Fiber from "effect/Fiber"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Logger from "effect/Logger"
import * as References from "effect/References"

// Request ids by the fiber that serves the request, and by the Node request (for fibers a handler forks). A log
// line written while serving a request finds its id here, so the request's context never carries a log
// annotation: annotating every request's context cost ~20 µs a request (a fifth of the stack's fixed cost),
// because every later service lookup in that context got slower. Looking the request up in a fiber's context
// costs ~15 µs too, so the serving fiber itself is the key of the common case.
const ids = new WeakMap<object, string>()

/** Records the id of the request `fiber` serves (see {@link withRequestIds}). */
export const rememberRequestId = (
  fiber: Fiber.Fiber<unknown, unknown>,
  request: HttpServerRequest.HttpServerRequest,
  id: string
): void => {
  ids.set(fiber, id)
  ids.set(request.source as object, id)
}

/** The id of the request a fiber serves, if it serves one. */
export const requestIdOf = (fiber: Fiber.Fiber<unknown, unknown>): string | undefined => {
  const id = ids.get(fiber)
  if (id !== undefined) return id
  const request = Context.getOrUndefined(fiber.context, HttpServerRequest.HttpServerRequest)
  return request === undefined ? undefined : ids.get(request.source as object)
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
