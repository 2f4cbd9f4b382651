import type { IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import { rememberedRequestId } from "../middleware/RequestIds.js"

/**
 * Puts the request's id (`x-request-id`, as every other answer carries it) into the `101 Switching Protocols` of an
 * upgrade. `ws` writes that head itself (`handleUpgrade`, inside Effect's Node server), past any Effect response,
 * and its `headers` event, the hook meant for this, belongs to a WebSocketServer the Node server creates and never
 * exposes. So the head is amended on its way out: the first write on the upgraded connection, made after the
 * middleware has remembered the id on the request. Any other first write (an error answer, which has its id
 * already) passes unchanged; later writes are frames, and are not looked at.
 */
export const stampUpgradeRequestId = (request: IncomingMessage, socket: Duplex): void => {
  const write = socket.write
  socket.write = function (this: Duplex, chunk: unknown, ...rest: Array<unknown>) {
    socket.write = write
    return Reflect.apply(write, this, [withRequestId(chunk, request), ...rest])
  } as Duplex["write"]
}

const switchingProtocols = /^HTTP\/1\.1 101 /

const withRequestId = (chunk: unknown, request: IncomingMessage): unknown => {
  if (typeof chunk !== "string" || !switchingProtocols.test(chunk)) return chunk
  const id = rememberedRequestId(request)
  const end = chunk.indexOf("\r\n\r\n")
  if (id === undefined || end < 0 || /\r\nx-request-id:/i.test(chunk.slice(0, end))) return chunk
  // The id is a checked header value (`[A-Za-z0-9._-]`, or a generated UUID): nothing in it can end the line.
  return `${chunk.slice(0, end)}\r\nX-Request-Id: ${id}${chunk.slice(end)}`
}
