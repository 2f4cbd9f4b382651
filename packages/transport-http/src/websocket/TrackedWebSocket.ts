import type { Duplex } from "node:stream"
import { bytesInUnits } from "@gatehouse-edge/core/domain"
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
  private maxPayload: number | undefined

  setSocket(socket: Duplex, head: Buffer, options: unknown): void {
    byConnection.set(socket, this)
    this.maxPayload = (options as { readonly maxPayload?: number } | undefined)?.maxPayload
    ;(WebSocket.prototype as unknown as { setSocket: (s: Duplex, h: Buffer, o: unknown) => void }).setSocket.call(
      this,
      socket,
      head,
      options
    )
  }

  /**
   * `ws` closes a connection whose message is larger than `maxPayload` with 1009 and no reason (its receiver calls
   * `close(1009)`): the client would learn only a code. Every other close here is given its reason by the session.
   */
  override close(code?: number, data?: string | Buffer): void {
    super.close(code, code === 1009 && data === undefined ? tooBigReason(this.maxPayload) : data)
  }
}

/** The reason of a 1009 close: a message over the server's limit (`maxPayload`, bytes) when it is known. */
export const tooBigReason = (maxPayload: number | undefined): string =>
  maxPayload === undefined || maxPayload <= 0
    ? "message too big"
    : `message too big: a message may be at most ${bytesInUnits(maxPayload)}`

/** The WebSocket running on an upgraded connection, once the handshake has completed. */
export const webSocketOf = (connection: Duplex): WebSocket | undefined => byConnection.get(connection)
