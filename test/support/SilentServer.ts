import * as net from "node:net"
import { Effect } from "effect"

/**
 * A TCP server on loopback that accepts connections and never answers (a stuck engine or server), closed with its
 * connections when the scope ends; `connected` resolves at the first connection.
 */
export const silentServer = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ server: net.Server; sockets: Set<net.Socket>; port: number; connected: Promise<void> }>(
        (resolve) => {
          let onConnection: () => void = () => {}
          const connected = new Promise<void>((done) => {
            onConnection = done
          })
          const sockets = new Set<net.Socket>()
          const server = net.createServer((socket) => {
            sockets.add(socket)
            socket.on("close", () => sockets.delete(socket))
            onConnection()
          })
          server.listen(0, "127.0.0.1", () =>
            resolve({ server, sockets, port: (server.address() as net.AddressInfo).port, connected })
          )
        }
      )
  ),
  // The connections first: `close` waits for them.
  ({ server, sockets }) =>
    Effect.sync(() => {
      for (const socket of sockets) socket.destroy()
      server.close()
    })
)
