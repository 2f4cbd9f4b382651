import type * as net from "node:net"

/**
 * How long a connection stays open once its HTTP/2 session has ended its side: time for a live peer to read the
 * last frames (GOAWAY, the final trailers) and close its own side, as grpc-js clients do at once.
 */
const closedSessionLingerMs = 1_000

/** The connections one gRPC server was handed, so that neither a stop nor a connection slot waits on a dead peer. */
export interface HeldConnections {
  /** Holds an accepted connection until it closes. */
  readonly hold: (socket: net.Socket) => void
  /** Destroys every connection still open. */
  readonly destroyAll: () => void
}

/**
 * Node ends an HTTP/2 session's connection gracefully (its FIN, and it keeps it until the peer's FIN), even after
 * `session.destroy()`: a peer that froze, lost its link or never spoke HTTP/2 would hold the connection, its slot
 * in the caps and a stopping server (grpc-js waits for each session's `close`, its forced shutdown too) for good.
 * So a connection whose session ended its side is destroyed a second later if its peer has not
 * closed it by then, and a stop destroys what is left once its grace is over. (Under TLS the TLS socket owns the
 * handle and this one sees no end: a stop ends such a connection at its grace.)
 */
export const makeHeldConnections = (): HeldConnections => {
  const sockets = new Set<net.Socket>()
  return {
    hold: (socket) => {
      sockets.add(socket)
      let linger: NodeJS.Timeout | undefined
      socket.once("finish", () => {
        linger = setTimeout(() => socket.destroy(), closedSessionLingerMs)
        // A server that is done with everything else need not stay up for a peer's FIN.
        linger.unref()
      })
      socket.once("close", () => {
        clearTimeout(linger)
        sockets.delete(socket)
      })
    },
    destroyAll: () => {
      for (const socket of sockets) socket.destroy()
    }
  }
}
