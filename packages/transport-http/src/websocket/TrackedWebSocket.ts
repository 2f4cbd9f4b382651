import type { Duplex } from "node:stream"
import { WebSocket } from "ws"

const byConnection = new WeakMap<Duplex, WebSocket>()

/**
 * The `ws` WebSocket class the server hands to its WebSocketServer (`websocket.WebSocket` option).
 * Effect's `Socket` hides the underlying `ws` object, but keeping a stream healthy needs it: `bufferedAmount`
 * tells a client that does not read apart from one that does, and `ping`/`pong` find dead peers. The server
 * calls `setSocket` with the upgraded TCP connection, which is also `request.source.socket`, so the handler can
 * find its WebSocket from the request it already has.
 */
export class TrackedWebSocket extends WebSocket {
  setSocket(socket: Duplex, head: Buffer, options: unknown): void {
    byConnection.set(socket, this)
    ;(WebSocket.prototype as unknown as { setSocket: (s: Duplex, h: Buffer, o: unknown) => void }).setSocket.call(
      this,
      socket,
      head,
      options
    )
  }
}

/** The WebSocket running on an upgraded connection, once the handshake has completed. */
export const webSocketOf = (connection: Duplex): WebSocket | undefined => byConnection.get(connection)
