import * as net from "node:net"
import { Effect } from "effect"

/** A TCP relay to a loopback port that a test can freeze: its port, and the freeze. */
export interface FreezableLink {
  readonly port: number
  /**
   * From now on nothing passes either way and neither side is closed: what a server sees of a client that froze
   * (a stopped process, a suspended VM) or lost its link. The relay stops reading, so it never sees the server's
   * FIN either, and never answers it.
   */
  readonly freeze: Effect.Effect<void>
}

/** A {@link FreezableLink} to `127.0.0.1:port`; its connections are destroyed with the scope. */
export const freezableLink = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly link: FreezableLink; readonly close: () => void }>((resume) => {
      const pairs: Array<readonly [net.Socket, net.Socket]> = []
      const relay = net.createServer((client) => {
        const upstream = net.connect(port, "127.0.0.1")
        for (const socket of [client, upstream]) socket.on("error", () => {})
        client.pipe(upstream)
        upstream.pipe(client)
        pairs.push([client, upstream])
      })
      const freeze = Effect.sync(() => {
        for (const [client, upstream] of pairs) {
          client.unpipe(upstream)
          upstream.unpipe(client)
          client.pause()
          upstream.pause()
        }
      })
      const close = () => {
        relay.close()
        for (const pair of pairs) for (const socket of pair) socket.destroy()
      }
      relay.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ link: { port: (relay.address() as net.AddressInfo).port, freeze }, close }))
      )
    }),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ link }) => link))

/**
 * A connection that never sends anything and never closes its side, even once the server closed its own: a port
 * scanner's that forgot it, or a client that froze between connecting and speaking. Destroyed with the scope.
 */
export const silentPeer = (to: { readonly port: number } | { readonly path: string }) =>
  Effect.acquireRelease(
    Effect.callback<net.Socket>((resume) => {
      const socket = net.connect(
        { ...("path" in to ? { path: to.path } : { port: to.port, host: "127.0.0.1" }), allowHalfOpen: true },
        () => resume(Effect.succeed(socket))
      )
      socket.on("error", () => {})
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )
