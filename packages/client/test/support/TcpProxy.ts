import * as net from "node:net"
import { Effect, type Scope } from "effect"

/** A TCP proxy in front of a server: shows, from outside the server, when the server ends a connection. */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  /** Connections to the server that the server has not closed yet. */
  readonly openUpstreams: () => number
  /** Connections made to the server so far. */
  readonly upstreams: () => number
  /**
   * Connections the server ended (FIN) while the client side was still open: the server closed them on its own
   * account, e.g. at the end of a WebSocket close handshake, not because the client dropped the TCP connection.
   */
  readonly endedByServer: () => number
  /** Connections the server answered with `101 Switching Protocols`: WebSockets it opened, so far. */
  readonly upgraded: () => number
  /** Drops every open connection on both sides at once, without a close frame: the network failed. */
  readonly cut: () => void
}

/** Starts a loopback TCP proxy to `127.0.0.1:<port>`. Scoped. */
export const startTcpProxy = (port: number): Effect.Effect<TcpProxy, never, Scope.Scope> =>
  Effect.gen(function* () {
    let open = 0
    let total = 0
    let endedByServer = 0
    let upgraded = 0
    const sockets = new Set<net.Socket>()
    const proxy = net.createServer((client) => {
      const upstream = net.connect(port, "127.0.0.1")
      open++
      total++
      sockets.add(client).add(upstream)
      let clientEnded = false
      client.pipe(upstream)
      upstream.pipe(client)
      upstream.once("data", (chunk: Buffer) => {
        if (chunk.toString("latin1").startsWith("HTTP/1.1 101")) upgraded++
      })
      client.on("end", () => {
        clientEnded = true
      })
      upstream.on("end", () => {
        if (!clientEnded && !client.destroyed) endedByServer++
      })
      upstream.on("close", () => {
        open--
        client.destroy()
      })
      client.on("close", () => {
        clientEnded = true
        upstream.end()
      })
      client.on("error", () => upstream.destroy())
      upstream.on("error", () => client.destroy())
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        proxy.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          for (const socket of sockets) socket.destroy()
          proxy.close(() => resume(Effect.void))
        })
    )
    const address = proxy.address() as net.AddressInfo
    return {
      origin: `http://127.0.0.1:${address.port}`,
      openUpstreams: () => open,
      upstreams: () => total,
      endedByServer: () => endedByServer,
      upgraded: () => upgraded,
      cut: () => {
        for (const socket of sockets) socket.destroy()
      }
    }
  })

/** Polls `check` every 20 ms until it holds, failing the test after `timeoutMs`. */
export const eventually = (check: () => boolean, what: string, timeoutMs = 5_000): Effect.Effect<void> => {
  const poll: Effect.Effect<void> = Effect.suspend(() =>
    check() ? Effect.void : Effect.andThen(Effect.sleep("20 millis"), poll)
  )
  return poll.pipe(
    Effect.timeoutOrElse({
      duration: timeoutMs,
      orElse: () => Effect.die(new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`))
    })
  )
}
